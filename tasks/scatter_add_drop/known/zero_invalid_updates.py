# expect: accepted; jaxpr passed
# why: keeps every index in range with clip and zeroes the updates of invalid ones
# instead: adding 0 at a clipped position changes nothing.
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    valid = (idx >= 0) & (idx < n)
    return x.at[jnp.clip(idx, 0, max(n - 1, 0))].add(jnp.where(valid, v, 0.0))
