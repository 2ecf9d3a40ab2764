import jax
import jax.numpy as jnp


def _standardize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


# One jit around the whole dict: one program per structure and leaf shapes, in which
# XLA fuses every leaf's mean, std, subtraction and division.  Called again with the
# same structure it traces nothing and compiles nothing.
@jax.jit
def standardize_tree(params):
    return jax.tree.map(_standardize, params)
