# expect: wrong_answer via examples, property; jaxpr skipped
# why: integer division: sum // n on an int32 input floors (the mean of [1, 2] is 1),
# and the result is int32, not float32.
import jax
import jax.numpy as jnp


@jax.jit
def safe_mean(x):
    return jnp.sum(x) // max(x.shape[0], 1)
