# expect: accepted; retrace passed, sync passed
# why: flattens outside jit and hands the jitted core a flat list of leaves: a list's
# length and the leaf shapes are its cache key, which is what the tree's structure gives.
import jax
import jax.numpy as jnp


@jax.jit
def _norm_of(leaves):
    return jnp.sqrt(sum((jnp.sum(l * l) for l in leaves), jnp.float32(0)))


def tree_global_norm(tree):
    return _norm_of(jax.tree.leaves(tree))
