# expect: wrong_answer via examples, property
# why: jnp.atleast_1d turns a rank-0 input into shape (1,): right values, wrong shape.
import jax
import jax.numpy as jnp


@jax.jit
def _scale(x, factor):
    return jnp.atleast_1d(x) * factor


def scale_preserve_dtype(x, factor):
    return _scale(x, factor)
