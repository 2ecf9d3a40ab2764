import jax
import jax.numpy as jnp
import numpy as np

_MIN_BUCKET = 8


def _bucket(n: int) -> int:
    """The smallest power of two that holds n items, and at least _MIN_BUCKET."""
    return max(_MIN_BUCKET, 1 << max(n - 1, 0).bit_length())


@jax.jit
def _masked_mean(padded, n):
    # One compiled version per bucket size: n is a traced value, not part of the key.
    mask = jnp.arange(padded.shape[0]) < n
    total = jnp.sum(jnp.where(mask, padded, 0.0))
    return jnp.where(n > 0, total / jnp.maximum(n, 1), 0.0).astype(jnp.float32)


def bucketed_mean(x):
    n = x.shape[0]
    padded = np.zeros(_bucket(n), np.float32)   # pad on the host: x is a NumPy array
    padded[:n] = x
    return _masked_mean(padded, np.int32(n))
