# expect: wrong_answer via examples, property
# why: computes in float32 "for accuracy" and forgets to cast back: right for float32 inputs only.
import jax
import jax.numpy as jnp


@jax.jit
def _scale(x, factor):
    return x.astype(jnp.float32) * factor


def scale_preserve_dtype(x, factor):
    return _scale(x, factor)
