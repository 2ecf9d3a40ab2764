# expect: inefficient via sync
# why: special-cases a single row by slicing it with int(lengths[0]): right, and never
# used by the script's eight-row calls, but on one-row inputs the length is pulled to
# the host (and every new length compiles the slice again).
import jax
import jax.numpy as jnp


@jax.jit
def _masked(values, lengths):
    mask = jnp.arange(values.shape[1])[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)


def masked_row_sums(values, lengths):
    if values.shape[0] == 1:
        n = int(lengths[0])
        return jnp.sum(values[:, :n], axis=1)
    return _masked(values, lengths)
