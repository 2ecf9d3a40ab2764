# expect: accepted; retrace passed
# why: one bucket for everything: every input is padded to 512, so jit traces exactly once.
import jax
import jax.numpy as jnp
import numpy as np

_SIZE = 512


@jax.jit
def _mean(padded, n):
    weights = (jnp.arange(_SIZE) < n).astype(jnp.float32)
    return jnp.dot(padded, weights) / jnp.maximum(n, 1)


def bucketed_mean(x):
    padded = np.zeros(_SIZE, np.float32)
    padded[: len(x)] = x
    return _mean(padded, np.float32(len(x)))
