# expect: accepted; retrace failed
# expect --strict: inefficient via retrace
# why: one jitted function of both arrays compiles once per pair of lengths, not per length.
import jax
import jax.numpy as jnp


@jax.jit
def both(x_a, x_b):
    return jnp.sum(x_a) + jnp.sum(x_b)


def cache_independent_count(x_a, x_b):
    return both(x_a, x_b)
