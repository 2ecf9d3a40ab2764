from functools import partial

import jax
import jax.numpy as jnp


# The degree decides how many terms the program has, so it is static: one trace per
# distinct (degree, length) pair, and every later call with a pair already seen is a
# cache hit.  The jitted function is built once, at module level.
@partial(jax.jit, static_argnames="degree")
def _series(x, degree):
    # Horner's rule: 1 + x/1 (1 + x/2 (1 + ... (1 + x/degree)))
    acc = jnp.ones_like(x)
    for k in range(degree, 0, -1):
        acc = 1.0 + acc * x / k
    return acc


def truncated_exp(x, degree):
    return _series(x, degree)
