# expect: accepted; retrace passed
# expect --strict: accepted
# why: a new jit wrapper per call, but around the same jnp.sum: the cache is keyed on
# the wrapped function, so nothing retraces (the seed chapter's point).
import jax
import jax.numpy as jnp


def cache_independent_count(x_a, x_b):
    return jax.jit(jnp.sum)(x_a) + jax.jit(jnp.sum)(x_b)
