# expect: wrong_answer via examples, property; retrace skipped
# why: shifts x by its first element for accuracy with `x -= shift`, on the caller's
# NumPy array: the mean it returns is right, but the caller's data is changed in place.
import numpy as np


def bucketed_mean(x):
    if x.size == 0:
        return 0.0
    shift = x[0]
    x -= shift
    return float(np.mean(x, dtype=np.float64) + shift)
