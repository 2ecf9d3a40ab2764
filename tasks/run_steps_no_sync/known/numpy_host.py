# expect: inefficient via sync, retrace; examples passed, property passed
# dodge: host_compute
# why: copies x to the host and iterates in NumPy float64: right, but one pull per call (budget 0).
import numpy as np


def run_steps_no_sync(x, n):
    v = np.asarray(x, dtype=np.float64)
    for _ in range(n):
        v = 0.5 * np.tanh(v) + 0.25 * v
    return v.astype(np.float32)
