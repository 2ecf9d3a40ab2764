# expect: inefficient via jaxpr; property passed
# why: right values, one update at a time: the Python loop over j runs at trace time and
# unrolls into the program, a mask, a select and a scatter per index, so the program
# grows with k (about 20 equations per index: 641 at k = 32 against 14).
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    if n == 0:
        return x
    for j in range(idx.shape[0]):
        i = idx[j]
        ok = (i >= 0) & (i < n)
        x = jnp.where(ok, x.at[jnp.clip(i, 0, n - 1)].add(v[j]), x)
    return x
