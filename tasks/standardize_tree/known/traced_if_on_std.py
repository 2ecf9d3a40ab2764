# expect: runtime_error via examples, property; retrace skipped
# why: guards the empty leaf with a Python `if x.size == 0` (fine: a static shape) but
# then also skips one-element leaves with `if jnp.std(x) == 0`: a traced value in an if.
import jax
import jax.numpy as jnp


def _one(x):
    if x.size == 0:
        return x
    if jnp.std(x) == 0:
        return jnp.zeros_like(x)
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


@jax.jit
def standardize_tree(params):
    return jax.tree.map(_one, params)
