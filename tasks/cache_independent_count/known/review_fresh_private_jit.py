# expect: accepted; retrace failed
# expect --strict: inefficient via retrace
# why: review-trust: a fresh jit on every call (jax._src.api.jit around a fresh
#   functools.partial, called through jax.tree.map) compiles twice per call, yet the
#   probe files it as an eager op ("0 traces", accepted in both modes, strict too);
#   XLA's own count agrees with the probe's total, so the cross-check is silent.
import functools
import jax
import jax.numpy as jnp
from jax._src import api as _api

def cache_independent_count(x_a, x_b):
    j = _api.jit(functools.partial(jnp.sum))
    k = _api.jit(functools.partial(jnp.sum))
    return jax.tree.map(j, x_a) + jax.tree.map(k, x_b)
