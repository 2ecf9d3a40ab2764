# expect: wrong_answer via examples, property; jaxpr skipped
# why: casts the mean back to the input's dtype: an int32 input gets a truncated int32
# mean instead of the float32 one.
import jax
import jax.numpy as jnp


@jax.jit
def safe_mean(x):
    return (jnp.sum(x) / max(x.shape[0], 1)).astype(x.dtype)
