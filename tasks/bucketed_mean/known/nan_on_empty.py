# expect: wrong_answer via examples, property
# why: masks correctly but divides by n without a guard: the empty input gives NaN, not 0.0.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _mean(padded, n):
    mask = jnp.arange(padded.shape[0]) < n
    return jnp.sum(jnp.where(mask, padded, 0.0)) / n


def bucketed_mean(x):
    n = len(x)
    size = max(8, 1 << max(n - 1, 0).bit_length())
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _mean(padded, np.int32(n))
