import jax
import jax.numpy as jnp
_s = jax.jit(jnp.sum)
def cache_independent_count(x_a, x_b):
    return _s(x_a) + _s(x_b)
