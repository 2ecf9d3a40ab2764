# expect: inefficient via retrace; examples passed, property passed
# why: the mean is computed in NumPy on the host; one eager jnp multiply on the scalar result kept the old off-device rule ("no compile at all") silent; no program of the call reads x, found by review-perf
# dodge: host_compute
import numpy as np
import jax.numpy as jnp


def bucketed_mean(x):
    m = np.float32(x.mean()) if x.shape[0] else np.float32(0.0)
    return jnp.asarray(m) * 1.0
