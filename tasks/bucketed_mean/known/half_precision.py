# expect: wrong_answer via property; examples passed
# why: buckets and masks correctly but sums in bfloat16 to "save memory": far too coarse for float32 data.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _mean(padded, n):
    mask = jnp.arange(padded.shape[0]) < n
    total = jnp.sum(jnp.where(mask, padded, 0.0).astype(jnp.bfloat16))
    return jnp.where(n > 0, total.astype(jnp.float32) / jnp.maximum(n, 1), 0.0)


def bucketed_mean(x):
    n = len(x)
    size = max(8, 1 << max(n - 1, 0).bit_length())
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _mean(padded, np.int32(n))
