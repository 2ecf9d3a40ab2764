# expect: accepted; jaxpr passed
# why: broadcasting instead of vmap: a [n, 1, d] minus a [1, m, d] array, squared and
# summed over the last axis; the same program for every n and m.
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_dists(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return jnp.sum(diff ** 2, axis=-1)
