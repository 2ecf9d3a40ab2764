# expect: accepted; jaxpr passed
# why: an unusual right answer: jnp.bincount with weights sums v per index; invalid
# indices go to an extra bin n, which is then cut off.
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    ok = (idx >= 0) & (idx < n)
    return x + jnp.bincount(jnp.where(ok, idx, n), weights=v, length=n + 1)[:n]
