# expect: accepted; retrace passed
# why: an unusual valid answer: the degree stays traced and masks the coefficients of a
# fixed degree-12 polynomial, so there is one trace per length and none per degree.
import math

import jax
import jax.numpy as jnp

MAX_DEGREE = 12
_COEFFS = jnp.array([1.0 / math.factorial(k) for k in range(MAX_DEGREE + 1)], jnp.float32)


@jax.jit
def _series(x, degree):
    keep = jnp.arange(MAX_DEGREE + 1) <= degree
    c = jnp.where(keep, _COEFFS, 0.0)
    acc = jnp.zeros_like(x)
    for k in range(MAX_DEGREE, -1, -1):
        acc = acc * x + c[k]
    return acc


def truncated_exp(x, degree):
    return _series(x, degree)
