# expect: accepted; retrace passed
# why: broadcasts factor with full_like (x's dtype) inside jit; unusual, but the same rounding and traces.
import jax
import jax.numpy as jnp
from jax import lax


def _scale(x, factor):
    return lax.mul(x, jnp.full_like(x, factor))


_scale = jax.jit(_scale)


def scale_preserve_dtype(x, factor):
    return _scale(x, factor)
