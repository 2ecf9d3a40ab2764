import jax
import jax.numpy as jnp


def standardize_tree(params):
    # This runs every operation eagerly, leaf by leaf: each one is dispatched (and, for
    # a new shape, compiled) on its own.  Make it one jitted program for the whole dict.
    out = {}
    for name, x in params.items():
        out[name] = (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)
    raise NotImplementedError("jit the whole function: one program per dict structure")
