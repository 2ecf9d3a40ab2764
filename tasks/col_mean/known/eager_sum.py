# expect: accepted; collectives passed
# why: the reference's sum, not jitted: called for values, the eager sum of the split
# rows runs one all-reduce, as the compiled trace does.
import jax.numpy as jnp


def col_mean(x):
    return jnp.sum(x, axis=0) / max(x.shape[0], 1)
