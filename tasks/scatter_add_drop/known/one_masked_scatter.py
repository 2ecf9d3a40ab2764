# expect: accepted; jaxpr passed
# why: the right answer: one scatter-add with mode="drop", every invalid index (negative
# or past the end) first sent to n, which the drop mode ignores.
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    ok = (idx >= 0) & (idx < n)
    return x.at[jnp.where(ok, idx, n)].add(v, mode="drop")
