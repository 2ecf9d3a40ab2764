# expect: accepted; retrace passed, sync passed
# why: the norm of the leaves' norms is the global norm (sqrt of the sum of their
# squares): right, with a constant for the tree without leaves.
import jax
import jax.numpy as jnp


@jax.jit
def tree_global_norm(tree):
    norms = [jnp.linalg.norm(jnp.ravel(leaf)) for leaf in jax.tree.leaves(tree)]
    return jnp.linalg.norm(jnp.stack(norms)) if norms else jnp.float32(0.0)
