# expect: runtime_error via examples
# why: computes the bucket with math.log2(len(x)): a math domain error on the empty input.
import math

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _mean(padded, n):
    mask = jnp.arange(padded.shape[0]) < n
    return jnp.sum(jnp.where(mask, padded, 0.0)) / n


def bucketed_mean(x):
    n = len(x)
    size = 2 ** math.ceil(math.log2(n))
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _mean(padded, np.int32(n))
