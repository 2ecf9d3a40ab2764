# expect: accepted; retrace failed
# expect --strict: inefficient via retrace
# why: a new lambda per call is a new function object: jit can never reuse a compile.
import jax
import jax.numpy as jnp


def cache_independent_count(x_a, x_b):
    helper = jax.jit(lambda v: jnp.sum(v))
    return helper(x_a) + helper(x_b)
