# A learner's solution to cache_independent_count, graded by the README's Quickstart.
import jax
import jax.numpy as jnp

sum_jit = jax.jit(jnp.sum)


def cache_independent_count(x_a, x_b):
    return sum_jit(x_a) + sum_jit(x_b)
