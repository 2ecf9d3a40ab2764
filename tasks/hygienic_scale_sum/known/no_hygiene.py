# expect: inefficient via retrace
# why: passes s through as it came: a weak float, a weak int and a strong float32 are three programs per length.
import jax
import jax.numpy as jnp


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    return _scaled_sum(x, s)
