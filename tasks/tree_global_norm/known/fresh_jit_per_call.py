# expect: inefficient via retrace; sync passed
# why: wraps a new lambda in jax.jit on every call: a new function object each time, so
# every call traces and compiles, even for a tree it has seen.
import jax
import jax.numpy as jnp


def tree_global_norm(tree):
    norm = jax.jit(lambda t: jnp.sqrt(sum((jnp.sum(l * l) for l in jax.tree.leaves(t)),
                                          jnp.float32(0))))
    return norm(tree)
