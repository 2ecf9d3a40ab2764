# expect: inefficient via retrace
# why: pads to power-of-two buckets only from length 32 up ("small inputs are not worth
# padding"): the script's lengths are all above 32 and pass, but every length below 32
# compiles a program of its own.
import jax
import jax.numpy as jnp
import numpy as np


def _bucket(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


@jax.jit
def _masked_mean(padded, n):
    mask = jnp.arange(padded.shape[0]) < n
    total = jnp.sum(jnp.where(mask, padded, 0.0))
    return jnp.where(n > 0, total / jnp.maximum(n, 1), 0.0).astype(jnp.float32)


def bucketed_mean(x):
    n = x.shape[0]
    if n < 32:
        return _masked_mean(x, np.int32(n))
    padded = np.zeros(_bucket(n), np.float32)
    padded[:n] = x
    return _masked_mean(padded, np.int32(n))
