# expect: wrong_answer via property
# why: takes the coefficients from a table of 1/k! for k up to 11: for degree 12 the
# slice silently stops one term short, an error of hundreds of float32 units of rounding
# on results near exp(-2) (the statement's examples only go up to degree 4).
import math
from functools import partial

import jax
import jax.numpy as jnp

_INVERSE_FACTORIALS = [1.0 / math.factorial(k) for k in range(12)]


@partial(jax.jit, static_argnames="degree")
def truncated_exp(x, degree):
    total = jnp.zeros_like(x)
    for k, c in enumerate(_INVERSE_FACTORIALS[:degree + 1]):
        total = total + c * x ** k
    return total
