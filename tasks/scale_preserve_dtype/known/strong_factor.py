# expect: wrong_answer via examples, property
# why: jnp.float32(factor) is strongly typed, so float16 and bfloat16 inputs are promoted to float32.
import jax
import jax.numpy as jnp


@jax.jit
def _scale(x, factor):
    return x * factor


def scale_preserve_dtype(x, factor):
    return _scale(x, jnp.float32(factor))
