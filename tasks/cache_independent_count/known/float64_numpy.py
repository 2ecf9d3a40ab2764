# expect: inefficient via host_sync
# dodge: host_compute
# why: computes in float64 with NumPy on the host: the values are right, but np.asarray
# pulls both inputs back from the device, and the default host-sync count names it.
import numpy as np


def cache_independent_count(x_a, x_b):
    return np.sum(np.asarray(x_a, np.float64)) + np.sum(np.asarray(x_b, np.float64))
