# expect: inefficient via retrace; examples passed, property passed
# dodge: host_compute
# why: the plain NumPy version: np.asarray(x), a Python mean, no jit, no padding,
# no mask. It never traces, so it never retraces: nothing ran on the device at all,
# where the reference compiles one program per bucket.
import numpy as np


def bucketed_mean(x):
    values = np.asarray(x, dtype=np.float64)
    if values.size == 0:
        return 0.0
    return float(sum(values.tolist()) / values.size)
