# expect: inefficient via retrace
# why: turns the rate into a Python float and makes it static: right values, but every
# new rate is a new cache key and traces again (three rates, three traces).
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="rate")
def _dropout(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / jnp.float32(1 - rate), 0.0)


def dropout(key, x, rate):
    return _dropout(key, x, rate=float(rate))
