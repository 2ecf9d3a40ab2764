# expect: wrong_answer via examples, property
# why: keeps the last lengths[i] entries of each row (padding on the left) instead of the first.
import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    T = values.shape[1]
    mask = jnp.arange(T)[None, :] >= (T - lengths)[:, None]
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)
