# expect: wrong_answer via examples, property; jaxpr skipped
# why: uses .set where the values must accumulate: with a repeated index only one of
# the updates survives (wrong values); on an empty x with indices to drop, its gather
# also fails outright, which the property check reports where its search meets such an
# input first (runtime_error with the pool of 8 shapes; with one size per band of n and
# k the wrong sum at the largest shape is met first and shrunk, the verdict wrong_answer).
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    valid = (idx >= 0) & (idx < n)
    safe = jnp.where(valid, idx, n)
    return x.at[safe].set(x[jnp.clip(safe, 0, max(n - 1, 0))] + v, mode="drop")
