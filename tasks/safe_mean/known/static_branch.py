# expect: accepted; jaxpr passed
# why: an `if` on the length is fine under jit (shapes are static): the empty input gets
# a constant, the rest jnp.mean, which converts int32 to float32 before summing.
import jax
import jax.numpy as jnp


@jax.jit
def safe_mean(x):
    if x.size == 0:
        return jnp.zeros((), jnp.float32)
    return jnp.mean(x)
