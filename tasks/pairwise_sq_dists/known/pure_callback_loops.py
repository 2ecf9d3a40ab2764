# expect: inefficient via jaxpr; examples passed, property passed
# dodge: host_callback
# why: a Python double loop in NumPy, called through jax.pure_callback: the values are
# right and the traced program is one equation at every size, because the whole
# computation left the device for the host.
import jax
import numpy as np


def _on_host(a, b):
    a, b = np.asarray(a), np.asarray(b)
    out = np.zeros((a.shape[0], b.shape[0]), np.float32)
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = np.sum((a[i] - b[j]) ** 2)
    return out


@jax.jit
def pairwise_sq_dists(a, b):
    shape = jax.ShapeDtypeStruct((a.shape[0], b.shape[0]), a.dtype)
    return jax.pure_callback(_on_host, shape, a, b)
