# expect: accepted; jaxpr passed
# why: vmaps over the rows of a only; each row is compared with all of b by broadcasting.
import jax
import jax.numpy as jnp


def _row(ai, b):
    return jnp.sum(jnp.square(b - ai), axis=1)


pairwise_sq_dists = jax.jit(jax.vmap(_row, in_axes=(0, None)))
