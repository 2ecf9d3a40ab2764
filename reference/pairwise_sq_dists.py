import jax
import jax.numpy as jnp


def _sq_dist(ai, bj):
    diff = ai - bj
    return jnp.sum(diff * diff)


# Write the rule for one pair of rows, then let vmap add the two batch dimensions:
# one program for every n and m, and the direct form is exactly 0 for equal rows and
# never negative.
@jax.jit
def pairwise_sq_dists(a, b):
    return jax.vmap(lambda ai: jax.vmap(lambda bj: _sq_dist(ai, bj))(b))(a)
