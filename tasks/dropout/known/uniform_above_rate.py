# expect: wrong_answer via examples, property; retrace skipped
# why: keeps where uniform > rate: each element survives with probability 1 - rate,
# but the mask is not the one uniform < 1 - rate (bernoulli) gives.
import jax
import jax.numpy as jnp


@jax.jit
def dropout(key, x, rate):
    keep = jax.random.uniform(key, x.shape) > rate
    return jnp.where(keep, x / (1 - rate), 0.0)
