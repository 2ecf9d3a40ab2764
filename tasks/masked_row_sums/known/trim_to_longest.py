# expect: runtime_error via property; examples passed
# why: trims the padding to the longest row first; max() of an empty batch raises (and int() is a sync anyway).
import jax.numpy as jnp


def masked_row_sums(values, lengths):
    longest = int(jnp.max(lengths))
    trimmed = values[:, :longest]
    mask = jnp.arange(longest)[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(mask, trimmed, 0.0), axis=1)
