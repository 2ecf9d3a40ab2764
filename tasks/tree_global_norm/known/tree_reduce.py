# expect: accepted
# why: an unusual right answer: jax.tree_util.tree_reduce folds the squared sums over the
# leaves, with a float32 zero to start from (so an empty tree gives 0.0).
import jax
import jax.numpy as jnp
from jax import tree_util


@jax.jit
def tree_global_norm(tree):
    squares = tree_util.tree_reduce(lambda acc, leaf: acc + jnp.vdot(leaf, leaf), tree,
                                    jnp.zeros((), jnp.float32))
    return jnp.sqrt(squares)
