# expect: runtime_error via examples, property; retrace skipped, sync skipped
# why: a hand-written walk over dicts and lists that treats anything else as an array:
# a tuple reaches jnp.square as a container of arrays of different shapes and fails.
import jax
import jax.numpy as jnp


def _squares(node):
    if isinstance(node, dict):
        return sum((_squares(v) for v in node.values()), jnp.float32(0))
    if isinstance(node, list):
        return sum((_squares(v) for v in node), jnp.float32(0))
    return jnp.sum(jnp.square(jnp.asarray(node)))


@jax.jit
def tree_global_norm(tree):
    return jnp.sqrt(_squares(tree))
