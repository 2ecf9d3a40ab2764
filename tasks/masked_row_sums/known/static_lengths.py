# expect: inefficient via retrace, sync; examples passed, property passed
# why: turns the lengths into a static tuple: one host sync per call and one trace per new set of lengths.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@partial(jax.jit, static_argnums=1)
def _sums(values, lengths):
    rows = [jnp.sum(values[i, :n]) for i, n in enumerate(lengths)]
    return jnp.stack(rows) if rows else jnp.zeros((0,), values.dtype)


def masked_row_sums(values, lengths):
    return _sums(values, tuple(np.asarray(lengths).tolist()))
