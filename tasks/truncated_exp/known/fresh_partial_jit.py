# expect: inefficient via retrace
# why: right values, but jax.jit(partial(...)) builds a new function object on every
# call, so jit cannot reuse anything: one trace per call instead of one per degree.
from functools import partial

import jax
import jax.numpy as jnp


def _series(x, degree):
    acc = jnp.ones_like(x)
    for k in range(degree, 0, -1):
        acc = 1.0 + acc * x / k
    return acc


def truncated_exp(x, degree):
    return jax.jit(partial(_series, degree=degree))(x)
