# target 2: a fresh jit on every call, called through jax.tree.map (jax's own frame),
# built through the private jax._src.api.jit, around a fresh functools.partial (no cache hit)
import functools
import jax
import jax.numpy as jnp
from jax._src import api as _api

def cache_independent_count(x_a, x_b):
    j = _api.jit(functools.partial(jnp.sum))
    k = _api.jit(functools.partial(jnp.sum))
    return jax.tree.map(j, x_a) + jax.tree.map(k, x_b)
