# expect: runtime_error via examples, property; jaxpr skipped
# why: NumPy habits: an in-place update of a JAX array raises TypeError (JAX arrays are
# immutable; use x.at[idx].add(v)).
import jax.numpy as jnp


def scatter_add_drop(x, idx, v):
    ok = (idx >= 0) & (idx < x.shape[0])
    x[idx[ok]] += v[ok]
    return x
