# expect: wrong_answer via property
# why: jnp.mean over zero rows divides by zero: NaN, where the task defines the means of no rows as zeros.
import jax
import jax.numpy as jnp


@jax.jit
def col_mean(x):
    return jnp.mean(x, axis=0)
