# expect: inefficient via retrace, host_sync; examples passed, property passed
# dodge: host_compute
# why: right values, computed in NumPy on the host: jax.device_get brings x and delta
# back, np.where does the work. Nothing is traced, so nothing retraces; the pull of the
# inputs is what the default host-sync count names.
import jax
import numpy as np


def huber(x, delta):
    x, delta = jax.device_get((x, delta))
    a = np.abs(x)
    return np.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta)).astype(np.float32)
