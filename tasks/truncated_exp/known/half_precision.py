# expect: wrong_answer via property
# why: evaluates in float16: the statement's examples are exact in half precision,
# generated inputs are not.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="degree")
def _series(x, degree):
    h = x.astype(jnp.float16)
    acc = jnp.ones_like(h)
    for k in range(degree, 0, -1):
        acc = 1 + acc * h / k
    return acc.astype(jnp.float32)


def truncated_exp(x, degree):
    return _series(x, degree)
