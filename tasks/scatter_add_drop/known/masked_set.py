# expect: runtime_error via examples, property, jaxpr
# why: uses .set where the values must accumulate: with a repeated index only one of
# the updates survives (wrong values); on an empty x with indices to drop, its gather
# fails outright.
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    valid = (idx >= 0) & (idx < n)
    safe = jnp.where(valid, idx, n)
    return x.at[safe].set(x[jnp.clip(safe, 0, max(n - 1, 0))] + v, mode="drop")
