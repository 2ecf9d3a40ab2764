# expect: wrong_answer via examples, property
# why: pads by repeating the last value and divides by the true length: the copies enter the sum.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _mean(padded, n):
    return jnp.sum(padded) / n


def bucketed_mean(x):
    n = len(x)
    if n == 0:
        return 0.0
    size = max(8, 1 << (n - 1).bit_length())
    return _mean(np.pad(x, (0, size - n), mode="edge"), np.float32(n))
