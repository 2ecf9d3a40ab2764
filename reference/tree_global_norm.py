import jax
import jax.numpy as jnp


# One jitted function of the whole tree: jit flattens it, so the structure (containers,
# dict keys sorted, leaf shapes) is the cache key and every leaf is a traced array.
# Nothing leaves the device until the caller reads the result.
@jax.jit
def tree_global_norm(tree):
    total = jnp.float32(0.0)
    for leaf in jax.tree.leaves(tree):
        total = total + jnp.sum(jnp.square(leaf))
    return jnp.sqrt(total)
