# expect: wrong_answer via property
# why: sums absolute values; the statement's examples are all positive, generated inputs are not.
import jax
import jax.numpy as jnp

_sum = jax.jit(lambda v: jnp.sum(jnp.abs(v)))


def cache_independent_count(x_a, x_b):
    return _sum(x_a) + _sum(x_b)
