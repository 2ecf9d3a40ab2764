# expect: inefficient via jaxpr; examples passed, property passed
# why: right values, one update at a time (a Python loop over the k indices, unrolled),
# hidden inside a program exported with jax.export: Exported.call puts one
# `call_exported` equation in the jaxpr, whatever the exported program runs.  The judge
# cannot count what an exported program runs, so the figure is unknown and the jaxpr
# check fails closed (as for a program compiled ahead of time).
import jax
import jax.numpy as jnp
from jax import export

_cache = {}


def _looped(x, idx, v):
    n = x.shape[0]
    if n == 0:
        return x
    for j in range(idx.shape[0]):  # unrolled: one update per index
        i = idx[j]
        ok = (i >= 0) & (i < n)
        x = x.at[jnp.where(ok, i, n)].add(v[j], mode="drop")
    return x


def scatter_add_drop(x, idx, v):
    key = (x.shape, idx.shape)
    if key not in _cache:
        specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in (x, idx, v)]
        _cache[key] = export.export(jax.jit(_looped))(*specs)
    return _cache[key].call(x, idx, v)
