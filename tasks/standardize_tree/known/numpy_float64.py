# expect: inefficient via retrace
# why: computes each leaf in NumPy float64 and converts back: right values (more
# accurate, even), but every leaf goes to the host and back through eager conversions,
# compiled for each leaf shape, instead of one program on the device.
import jax.numpy as jnp
import numpy as np


def standardize_tree(params):
    out = {}
    for name, value in params.items():
        a = np.asarray(value, np.float64)
        out[name] = jnp.asarray((a - a.mean()) / (a.std() + 1e-6) if a.size else a, jnp.float32)
    return out
