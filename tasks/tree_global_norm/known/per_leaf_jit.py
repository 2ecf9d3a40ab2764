# expect: inefficient via retrace; sync passed
# why: jits the work of one leaf and loops over the leaves in Python: one trace per
# distinct leaf shape (five in the script) instead of one per tree structure (three),
# and a dispatch per leaf on every call.
import jax
import jax.numpy as jnp


@jax.jit
def _leaf_squares(leaf):
    return jnp.sum(jnp.square(leaf))


def tree_global_norm(tree):
    total = jnp.float32(0.0)
    for leaf in jax.tree.leaves(tree):
        total = total + _leaf_squares(leaf)
    return jnp.sqrt(total)
