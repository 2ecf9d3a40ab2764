# expect: inefficient via retrace
# why: jits a lambda written inside the function: a new function object on every call,
# so even a second call with the same dict traces and compiles from scratch.
import jax
import jax.numpy as jnp


def standardize_tree(params):
    return jax.jit(lambda p: jax.tree.map(
        lambda x: (x - jnp.mean(x)) / (jnp.std(x) + 1e-6), p))(params)
