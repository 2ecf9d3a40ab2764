# expect: runtime_error via instruments
# why: finds the judge's sync counter through gc and closes it, which puts numpy's and
# jax's original functions back; then reads every length to the host with int() and
# slices each row, unseen. A submission that touches the judge's instruments is told so.
import gc

import jax.numpy as jnp

for _obj in gc.get_objects():
    if type(_obj).__name__ == "SyncCounter":
        _obj.close()


def masked_row_sums(values, lengths):
    return jnp.stack([jnp.sum(row[:int(n)]) for row, n in zip(values, lengths)]) \
        if values.shape[0] else jnp.zeros((0,), values.dtype)
