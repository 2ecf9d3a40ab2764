# expect: accepted; retrace passed
# why: a dict comprehension inside one jit instead of jax.tree.map: the loop runs once,
# at trace time, and the program is the same.
import jax
import jax.numpy as jnp


@jax.jit
def standardize_tree(params):
    out = {}
    for name, x in params.items():
        centered = x - x.mean()
        out[name] = centered / (jnp.sqrt(jnp.mean(centered ** 2)) + 1e-6)
    return out
