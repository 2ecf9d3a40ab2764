# target 3: a Python double loop over the rows (the program grows with n and m: the
# jaxpr check must fail it), with the jaxpr instrument's own bound make_jaxpr swapped
# (found through gc: the dict its setup returned) for one that traces a vectorized
# function instead.  Should be: inefficient via jaxpr (or runtime_error: tampering).
import gc
import jax
import jax.numpy as jnp

def _good(a, b):
    return jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)

_real = jax.make_jaxpr
def _fake(fn, *args, **kwargs):
    return _real(_good, *args, **kwargs)

def _swap():
    for o in gc.get_objects():
        if isinstance(o, dict) and "make_jaxpr" in o and "jaxprs_in_params" in o:
            o["make_jaxpr"] = _fake

def pairwise_sq_dists(a, b):
    _swap()
    rows = []
    for i in range(a.shape[0]):
        rows.append(jnp.stack([jnp.sum((a[i] - b[j]) ** 2) for j in range(b.shape[0])])
                    if b.shape[0] else jnp.zeros((0,), a.dtype))
    return jnp.stack(rows) if rows else jnp.zeros((0, b.shape[0]), a.dtype)
