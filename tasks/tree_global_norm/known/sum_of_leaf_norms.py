# expect: wrong_answer via examples, property; retrace skipped, sync skipped
# why: adds up the norms of the leaves instead of taking the norm of all of them
# together: right for a tree with one leaf, too large otherwise.
import jax
import jax.numpy as jnp


@jax.jit
def tree_global_norm(tree):
    return sum((jnp.linalg.norm(jnp.ravel(l)) for l in jax.tree.leaves(tree)), jnp.float32(0))
