# expect: wrong_answer via examples, property; retrace skipped
# why: does the arithmetic in NumPy with a float64 rate: the values are right but every
# parameter comes back float64, not float32.
import jax
import numpy as np


def tree_sgd(params, grads, lr):
    rate = np.float64(lr)
    return jax.tree.map(lambda p, g: np.asarray(p) - rate * np.asarray(g), params, grads)
