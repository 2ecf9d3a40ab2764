# expect: inefficient via retrace
# why: makes delta a static Python float to be allowed a Python `if` on it: right
# values, but every new delta is a new cache key (six deltas, six traces).
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="delta")
def _huber(x, delta):
    a = jnp.abs(x)
    if delta <= 0:
        return jnp.zeros_like(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))


def huber(x, delta):
    return _huber(x, delta=float(delta))
