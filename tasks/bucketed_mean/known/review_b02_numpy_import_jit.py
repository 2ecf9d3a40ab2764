# expect: inefficient via retrace; examples passed, property passed
# why: the mean is computed in NumPy on the host; one trivial jit compiled at import kept the old off-device rule ("no compile at all") silent; no program of the call reads x, found by review-perf
# dodge: host_compute
import numpy as np
import jax
import jax.numpy as jnp

_warm = jax.jit(lambda v: v + 0)(jnp.float32(0))


def bucketed_mean(x):
    return np.float32(x.mean()) if x.shape[0] else np.float32(0.0)
