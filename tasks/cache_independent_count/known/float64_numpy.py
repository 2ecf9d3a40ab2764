# expect: accepted
# why: computes in float64 with NumPy: a correct answer in another precision passes.
import numpy as np


def cache_independent_count(x_a, x_b):
    return np.sum(np.asarray(x_a, np.float64)) + np.sum(np.asarray(x_b, np.float64))
