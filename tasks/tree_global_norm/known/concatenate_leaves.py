# expect: runtime_error via examples, property; retrace skipped, sync skipped
# why: concatenates every leaf into one vector and takes its norm: right for any tree
# with a leaf, but jnp.concatenate of no arrays (an empty dict or list) raises.
import jax
import jax.numpy as jnp


@jax.jit
def tree_global_norm(tree):
    flat = jnp.concatenate([jnp.ravel(l) for l in jax.tree.leaves(tree)])
    return jnp.linalg.norm(flat)
