# expect: inefficient via retrace
# why: jax.tree.map(jax.jit(partial(jnp.multiply, factor)), x): a fresh jit of a fresh
# partial on every call, so every call traces and compiles; jit is called from inside
# jax.tree.map, not from this file, yet it is this file's jit.
from functools import partial

import jax
import jax.numpy as jnp


def scale_preserve_dtype(x, factor):
    return jax.tree.map(jax.jit(partial(jnp.multiply, factor)), x)
