# expect: accepted; retrace passed
# why: pads on the host to a power-of-two bucket (a NumPy copy of x, zeros after it) and
# masks on the device: the padded copy, sent to the device in the call and read by the
# program, holds x's values, so it counts as reading x (the decoys next to it do not).
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _masked_mean(padded, n):
    mask = jnp.arange(padded.shape[0]) < n
    total = jnp.sum(jnp.where(mask, padded, 0.0))
    return jnp.where(n > 0, total / jnp.maximum(n, 1), 0.0)


def bucketed_mean(x):
    n = len(x)
    size = max(8, 1 << max(0, (n - 1).bit_length()))
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _masked_mean(padded, n)
