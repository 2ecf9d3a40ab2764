# expect: accepted; retrace passed
# why: a strongly typed factor in x's own dtype: no promotion, and one trace per dtype and shape of x.
import jax
import jax.numpy as jnp


@jax.jit
def _scale(x, factor):
    return x * factor


def scale_preserve_dtype(x, factor):
    return _scale(x, jnp.asarray(factor, dtype=x.dtype))
