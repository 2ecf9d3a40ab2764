# expect: wrong_answer via property; examples passed
# why: masks correctly but sums in float16: rounding of values near 10 alone is about 0.004.
import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    mask = jnp.arange(values.shape[1])[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(mask, values, 0.0).astype(jnp.float16), axis=1).astype(jnp.float32)
