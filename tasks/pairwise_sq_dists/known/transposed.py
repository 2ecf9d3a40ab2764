# expect: wrong_answer via examples, property; jaxpr skipped
# why: vmaps over b on the outside: the [m, n] matrix, rows for b and columns for a.
import jax
import jax.numpy as jnp


def _pair(u, v):
    return jnp.sum((u - v) ** 2)


@jax.jit
def pairwise_sq_dists(a, b):
    return jax.vmap(lambda bj: jax.vmap(lambda ai: _pair(ai, bj))(a))(b)
