import jax
import jax.numpy as jnp


def sq_dist(u, v):
    """The squared distance between two rows of length d."""
    return jnp.sum((u - v) ** 2)


@jax.jit
def pairwise_sq_dists(a, b):
    # out[i, j] = sq_dist(a[i], b[j]).  No Python loop over i or j: vmap sq_dist twice
    # (or broadcast), so the program is the same for every n and m.
    raise NotImplementedError("return the [n, m] matrix of squared distances")
