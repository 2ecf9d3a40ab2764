# expect: invalid_submission
# why: a missing colon.
import jax.numpy as jnp


def cache_independent_count(x_a, x_b)
    return jnp.sum(x_a) + jnp.sum(x_b)
