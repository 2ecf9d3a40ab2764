# expect: inefficient via sync
# why: builds the mask with np.less instead of jnp.less: the sums are right, but numpy
# reads lengths back to the host on every call (through the buffer protocol, not a
# float() or .item() anyone would notice).
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _sums(values, mask):
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)


def masked_row_sums(values, lengths):
    mask = np.less(np.arange(values.shape[1]), lengths[:, None])
    return _sums(values, mask)
