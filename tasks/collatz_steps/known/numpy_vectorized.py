# expect: inefficient via sync, retrace; examples passed, property passed
# dodge: host_compute
# why: the same masked loop in NumPy: exact, but np.asarray(n) copies the input to the host (budget 0).
import numpy as np


def collatz_steps(n):
    v = np.asarray(n).astype(np.int64)
    steps = np.zeros(v.shape, np.int32)
    while np.any(v != 1):
        active = v != 1
        v = np.where(active, np.where(v % 2 == 0, v // 2, 3 * v + 1), v)
        steps += active
    return steps
