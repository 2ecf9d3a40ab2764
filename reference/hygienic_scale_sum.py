import jax
import jax.numpy as jnp


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    # Argument hygiene: one form for s at the call site.  A Python float or int, a
    # np.float32 and a jnp.float32 all become a strongly typed float32 JAX scalar, so
    # the jitted core sees one abstract signature per length of x.
    return _scaled_sum(x, jnp.asarray(s, dtype=jnp.float32))
