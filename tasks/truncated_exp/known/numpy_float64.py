# expect: accepted; retrace passed
# why: plain NumPy in float64, power series term by term: right in another precision,
# and nothing jitted for the retrace check to count.
import math

import numpy as np


def truncated_exp(x, degree):
    v = np.asarray(x, dtype=np.float64)
    return sum(v**k / math.factorial(k) for k in range(degree + 1)) * np.ones_like(v)
