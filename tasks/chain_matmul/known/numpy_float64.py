# expect: runtime_error via cost; examples failed
# why: NumPy's multi_dot: the right association, but in float64 on the host; the judge cannot compile it to read its cost, and a float64 result is wrong anyway.
import numpy as np


def chain_matmul(a, b, c):
    return np.linalg.multi_dot([np.asarray(a, np.float64), np.asarray(b, np.float64),
                                np.asarray(c, np.float64)])
