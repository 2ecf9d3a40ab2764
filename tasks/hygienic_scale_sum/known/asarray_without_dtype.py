# expect: inefficient via retrace
# why: jnp.asarray(s) looks canonical, but keeps int32 for an int and the weak type of Python scalars.
import jax
import jax.numpy as jnp


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    return _scaled_sum(x, jnp.asarray(s))
