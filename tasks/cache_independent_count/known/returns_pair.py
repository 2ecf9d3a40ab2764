# expect: wrong_answer via examples
# why: returns the two sums instead of their total.
import jax
import jax.numpy as jnp

_sum = jax.jit(jnp.sum)


def cache_independent_count(x_a, x_b):
    return _sum(x_a), _sum(x_b)
