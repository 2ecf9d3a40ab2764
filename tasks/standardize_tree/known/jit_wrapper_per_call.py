# expect: accepted; retrace passed
# why: calls jax.jit(_core) inside the function on every call: a new wrapper, but around
# the same function, and jit's cache belongs to the function, so nothing traces again.
import jax
import jax.numpy as jnp


def _core(params):
    return jax.tree.map(lambda x: (x - jnp.mean(x)) / (jnp.std(x) + 1e-6), params)


def standardize_tree(params):
    return jax.jit(_core)(params)
