# expect: wrong_answer via examples, property; retrace skipped
# why: memoises the result (not the compiled function) per degree: a new x with a
# degree seen before gets the old answer back.
from functools import partial

import jax
import jax.numpy as jnp

_seen = {}


@partial(jax.jit, static_argnums=1)
def _series(x, degree):
    acc = jnp.ones_like(x)
    for k in range(degree, 0, -1):
        acc = 1.0 + acc * x / k
    return acc


def truncated_exp(x, degree):
    if degree not in _seen:
        _seen[degree] = _series(x, degree)
    return _seen[degree]
