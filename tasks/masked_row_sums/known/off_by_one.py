# expect: wrong_answer via examples, property
# why: positions <= lengths keeps one entry too many in every row.
import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    mask = jnp.arange(values.shape[1])[None, :] <= lengths[:, None]
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)
