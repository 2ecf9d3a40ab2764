# expect: wrong_answer via examples, property
# why: stops one term early: range(degree) leaves out x**degree / degree!.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def truncated_exp(x, degree):
    term = jnp.ones_like(x)
    total = jnp.ones_like(x)
    for k in range(1, degree):
        term = term * x / k
        total = total + term
    return total
