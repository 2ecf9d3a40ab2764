# expect: accepted; retrace passed, sync passed
# why: writes the rule for one row and lets jax.vmap add the batch axis; jitted once at module level.
import jax
import jax.numpy as jnp


def _row(row, length):
    return jnp.sum(jnp.where(jnp.arange(row.shape[0]) < length, row, 0.0))


masked_row_sums = jax.jit(jax.vmap(_row))
