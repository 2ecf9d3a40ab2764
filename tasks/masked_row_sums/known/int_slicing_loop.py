# expect: inefficient via sync, retrace; examples passed, property passed
# why: right values from a Python loop of slices, but int(lengths[i]) pulls each length to the host, and each new slice length compiles the eager slice again.
import jax.numpy as jnp


def masked_row_sums(values, lengths):
    if values.shape[0] == 0:
        return jnp.zeros((0,), jnp.float32)
    return jnp.stack([jnp.sum(values[i, : int(lengths[i])]) for i in range(values.shape[0])])
