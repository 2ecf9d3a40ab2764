# expect: wrong_answer via property
# why: adds 0.5 to every row's sum when the rows are 21 to 27 long (T), right at every other width: a wrong band on the second of two dimensions; the shape pool deals each dimension's bands over its entries (24-27 lies inside this band), so some generated input has such rows; accepted before (8 shapes, all edges but one)
import jax
import jax.numpy as jnp


@jax.jit
def _sums(values, lengths):
    mask = jnp.arange(values.shape[1])[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)


def masked_row_sums(values, lengths):
    out = _sums(values, lengths)
    if 20 < values.shape[1] < 28:
        out = out + 0.5
    return out
