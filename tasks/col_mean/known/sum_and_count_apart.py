# expect: accepted
# why: counts the rows with a second sum over the split rows; XLA merges the two reductions into one all-reduce, so the budget holds.
import jax
import jax.numpy as jnp


@jax.jit
def col_mean(x):
    count = jnp.sum(jnp.ones_like(x[:, 0]))
    return jnp.sum(x, axis=0) / jnp.maximum(count, 1.0)
