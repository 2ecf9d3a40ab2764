# expect: inefficient via retrace; examples passed, property passed
# why: pads to buckets, then passes the true length as a static argument: back to one trace per length.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@partial(jax.jit, static_argnums=1)
def _mean(padded, n):
    if n == 0:
        return jnp.float32(0.0)
    return jnp.sum(padded[:n]) / n


def bucketed_mean(x):
    n = len(x)
    size = max(8, 1 << (n - 1).bit_length()) if n else 8
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _mean(padded, n)
