# control for a09: the same loop, no swap (must fail the jaxpr check)
import jax.numpy as jnp
def pairwise_sq_dists(a, b):
    rows = []
    for i in range(a.shape[0]):
        rows.append(jnp.stack([jnp.sum((a[i] - b[j]) ** 2) for j in range(b.shape[0])])
                    if b.shape[0] else jnp.zeros((0,), a.dtype))
    return jnp.stack(rows) if rows else jnp.zeros((0, b.shape[0]), a.dtype)
