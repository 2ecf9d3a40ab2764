# expect: accepted; retrace passed, sync passed
# why: no jit at all: jax.tree.map squares each leaf eagerly and the sum stays a device
# array; right, and nothing jitted to count.
import jax
import jax.numpy as jnp


def tree_global_norm(tree):
    squares = jax.tree.leaves(jax.tree.map(lambda l: jnp.sum(l ** 2), tree))
    return jnp.sqrt(jnp.sum(jnp.stack(squares))) if squares else jnp.float32(0.0)
