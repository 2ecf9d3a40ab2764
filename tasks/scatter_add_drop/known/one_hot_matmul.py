# expect: accepted; jaxpr passed
# why: compares every index with every position: a [k, n] one-hot matrix, whose rows for
# invalid indices are all zero (no position equals -1 or n + 2); then v @ onehot.
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    onehot = idx[:, None] == jnp.arange(x.shape[0])[None, :]
    return x + v @ onehot.astype(v.dtype)
