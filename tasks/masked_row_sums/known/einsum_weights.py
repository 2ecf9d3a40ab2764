# expect: accepted; retrace passed, sync passed
# why: the mask as float weights and one einsum: a row-wise dot product with the mask.
import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    weights = (jnp.arange(values.shape[1]) < lengths[:, None]).astype(values.dtype)
    return jnp.einsum("bt,bt->b", values, weights)
