# expect: inefficient via jaxpr; examples passed, property passed
# why: the right program (one masked scatter), but called as a program exported with
# jax.export: the judge cannot count what an exported program runs (one `call_exported`
# equation however big it is), so the jaxpr figure is unknown and the check fails
# closed, as it does for a program compiled ahead of time; call the function itself.
import jax
import jax.numpy as jnp
from jax import export

_cache = {}


def _one_scatter(x, idx, v):
    n = x.shape[0]
    ok = (idx >= 0) & (idx < n)
    return x.at[jnp.where(ok, idx, n)].add(v, mode="drop")


def scatter_add_drop(x, idx, v):
    key = (x.shape, idx.shape)
    if key not in _cache:
        specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in (x, idx, v)]
        _cache[key] = export.export(jax.jit(_one_scatter))(*specs)
    return _cache[key].call(x, idx, v)
