# expect: accepted; retrace passed
# why: pads with zeros, takes a running sum on the device and reads it at index n (a traced gather).
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _mean(padded, n):
    running = jnp.concatenate([jnp.zeros(1, padded.dtype), jnp.cumsum(padded)])
    return jnp.where(n == 0, 0.0, running[n] / jnp.maximum(n, 1))


def bucketed_mean(x):
    n = x.shape[0]
    bucket = 8
    while bucket < n:
        bucket *= 2
    return _mean(np.pad(x, (0, bucket - n)), jnp.int32(n))
