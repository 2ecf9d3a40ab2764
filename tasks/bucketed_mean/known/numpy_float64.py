# expect: inefficient via retrace; examples passed, property passed
# dodge: host_compute
# why: no jit at all: NumPy on the host in float64 never compiles, so there is nothing to retrace.
import numpy as np


def bucketed_mean(x):
    if x.size == 0:
        return 0.0
    return float(np.mean(x, dtype=np.float64))
