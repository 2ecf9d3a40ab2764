import jax
import jax.numpy as jnp


# One scatter-add, whatever k: invalid indices (negative ones included) are first sent
# to n, past the end, where mode="drop" discards them.  Without that, JAX's indexing
# would wrap -1 to n - 1 before the drop ever sees it.
@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    valid = (idx >= 0) & (idx < n)
    return x.at[jnp.where(valid, idx, n)].add(v, mode="drop")
