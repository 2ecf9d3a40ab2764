import jax
import jax.numpy as jnp


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    # x: a 1-D float32 JAX array (possibly empty)
    # s: a Python float, a Python int, a np.float32 or a jnp.float32 scalar
    # Bring s into one form here, then call _scaled_sum: one trace per length of x,
    # whatever form s arrived in.  Return a float32 scalar.
    raise NotImplementedError("canonicalise s, then call _scaled_sum(x, s)")
