# expect: wrong_answer via examples, property
# why: reads a running sum at lengths - 1; index -1 wraps to the last column, so a length of 0 gives the whole row.
import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    running = jnp.cumsum(values, axis=1)
    return jnp.take_along_axis(running, (lengths - 1)[:, None], axis=1)[:, 0]
