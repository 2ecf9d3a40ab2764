# expect: accepted; retrace passed
# why: a factory per degree, but memoised: each degree's jitted closure is built once
# and reused, so it traces once per (degree, length) like a static argument.
import functools
import math

import jax
import jax.numpy as jnp


@functools.lru_cache(maxsize=None)
def _compiled(degree):
    inv_fact = [1.0 / math.factorial(k) for k in range(degree + 1)]
    return jax.jit(lambda v: jnp.polyval(jnp.array(inv_fact[::-1], jnp.float32), v))


def truncated_exp(x, degree):
    return _compiled(degree)(x)
