import jax
import jax.numpy as jnp

# One jitted helper, built once: its cache keeps one compiled version per length.
_sum = jax.jit(jnp.sum)


def cache_independent_count(x_a, x_b):
    return _sum(x_a) + _sum(x_b)
