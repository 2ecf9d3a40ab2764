# expect: runtime_error via jaxpr; examples passed, property passed
# why: does the work in NumPy (np.add.at accumulates duplicates): right values, but the
# code needs concrete arrays, so the judge cannot trace it into a JAX program at all.
import jax.numpy as jnp
import numpy as np


def scatter_add_drop(x, idx, v):
    out = np.array(x)
    idx, v = np.asarray(idx), np.asarray(v)
    ok = (idx >= 0) & (idx < out.shape[0])
    np.add.at(out, idx[ok], v[ok])
    return jnp.asarray(out)
