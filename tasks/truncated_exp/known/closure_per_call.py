# expect: inefficient via retrace
# why: the degree is baked in by closing over it in a lambda built on every call: a new
# function each time, so every call traces, even for a degree seen before.
import math

import jax
import jax.numpy as jnp


def truncated_exp(x, degree):
    coeffs = [1.0 / math.factorial(k) for k in range(degree + 1)]

    @jax.jit
    def series(v):
        return sum(c * v**k for k, c in enumerate(coeffs)) * jnp.ones_like(v)

    return series(x)
