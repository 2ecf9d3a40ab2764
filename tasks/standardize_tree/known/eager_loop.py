# expect: inefficient via retrace
# why: the starter's loop without jit: right values, but every mean, std, subtraction
# and division is its own eager operation, compiled for each new leaf shape (dozens of
# compiles where one jitted program per structure would do).
import jax.numpy as jnp


def standardize_tree(params):
    out = {}
    for name, x in params.items():
        out[name] = (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)
    return out
