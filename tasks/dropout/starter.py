import jax
import jax.numpy as jnp


@jax.jit
def dropout(key, x, rate):
    # 1. keep = jax.random.bernoulli(key, 1 - rate, x.shape): True where x survives.
    # 2. Scale the survivors by 1 / (1 - rate) and zero the rest.
    # Use the key exactly as given (do not split it first), and keep rate traced.
    raise NotImplementedError("keep each element with probability 1 - rate, scale survivors by 1 / (1 - rate)")
