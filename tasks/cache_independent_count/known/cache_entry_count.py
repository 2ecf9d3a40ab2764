# expect: wrong_answer via examples, property
# why: takes the function's name literally and returns the helper's cache-entry count.
import jax
import jax.numpy as jnp

sum_jit = jax.jit(jnp.sum)


def cache_independent_count(x_a, x_b):
    sum_jit(x_a)
    sum_jit(x_b)
    return sum_jit._cache_size()
