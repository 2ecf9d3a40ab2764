# expect: accepted; retrace passed
# why: pads x with NumPy on the host to its power-of-two bucket, then one jitted masked
# mean per bucket: the padded copy, larger than x, is what the device program reads, so
# the answer comes from the device.
import numpy as np
import jax
import jax.numpy as jnp


@jax.jit
def _mean(padded, n):
    total = jnp.sum(jnp.where(jnp.arange(padded.shape[0]) < n, padded, 0.0))
    return jnp.where(n > 0, total / jnp.maximum(n, 1), 0.0).astype(jnp.float32)


def bucketed_mean(x):
    n = x.shape[0]
    size = max(8, 1 << max(n - 1, 0).bit_length())
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _mean(padded, np.int32(n))
