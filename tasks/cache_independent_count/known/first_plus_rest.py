# expect: runtime_error via property
# why: x[0] fails on an empty input.
import jax.numpy as jnp


def cache_independent_count(x_a, x_b):
    return x_a[0] + jnp.sum(x_a[1:]) + x_b[0] + jnp.sum(x_b[1:])
