# expect: accepted
# why: multiplies by the mask and by the reciprocal of the keep probability: one unit
# of rounding away from dividing, and a dropped negative becomes -0.0, which is 0.0.
import jax
import jax.numpy as jnp


def _dropout(key, x, rate):
    mask = jax.random.bernoulli(key, 1.0 - rate, x.shape).astype(x.dtype)
    return x * mask * (1.0 / (1.0 - rate))


dropout = jax.jit(_dropout)
