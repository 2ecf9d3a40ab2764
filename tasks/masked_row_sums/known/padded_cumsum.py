# expect: accepted; retrace passed, sync passed
# why: a running sum with a zero column in front, read at index lengths[i]: no mask at all, no wrap-around.
import jax.numpy as jnp


def masked_row_sums(values, lengths):
    running = jnp.cumsum(values, axis=1)
    running = jnp.concatenate([jnp.zeros((values.shape[0], 1), values.dtype), running], axis=1)
    return jnp.take_along_axis(running, lengths[:, None], axis=1)[:, 0]
