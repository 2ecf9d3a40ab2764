# expect: runtime_error via examples, property; retrace skipped
# why: a Python `if` on the traced rate: inside jit, rate is a placeholder with no value,
# and turning it into a bool raises TracerBoolConversionError.
import jax
import jax.numpy as jnp


@jax.jit
def dropout(key, x, rate):
    if rate == 0:
        return x
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0.0)
