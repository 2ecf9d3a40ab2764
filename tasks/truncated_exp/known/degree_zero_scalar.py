# expect: wrong_answer via examples, property
# why: 1 + a Python sum over k >= 1: for degree 0 the sum is empty and the function
# returns the number 1, not one value per element.
import math
from functools import partial

import jax


@partial(jax.jit, static_argnames="degree")
def _tail(x, degree):
    return sum(x**k / math.factorial(k) for k in range(1, degree + 1))


def truncated_exp(x, degree):
    if degree == 0:
        return 1.0
    return 1.0 + _tail(x, degree)
