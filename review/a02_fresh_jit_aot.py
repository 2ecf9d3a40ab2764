# target 2: fresh AOT compile every call (.lower().compile() has no jit frame: eager?)
import functools
import jax
import jax.numpy as jnp
from jax._src import api as _api

def cache_independent_count(x_a, x_b):
    out = 0.0
    for x in (x_a, x_b):
        c = jax.tree.map(lambda v: _api.jit(functools.partial(jnp.sum)).lower(v).compile(), x)
        out = out + c(x)
    return out
