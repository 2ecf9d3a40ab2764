# expect: inefficient via host_sync
# dodge: host_compute
# why: plain NumPy in float64, power series term by term: right in another precision,
# but x is pulled back to the host (np.asarray) and the series is summed there; the
# default host-sync count names the pull.
import math

import numpy as np


def truncated_exp(x, degree):
    v = np.asarray(x, dtype=np.float64)
    return sum(v**k / math.factorial(k) for k in range(degree + 1)) * np.ones_like(v)
