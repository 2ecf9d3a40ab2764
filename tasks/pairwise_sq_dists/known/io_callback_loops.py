# expect: inefficient via jaxpr; examples passed, property passed
# dodge: host_callback
# why: the same double loop on the host through jax.experimental.io_callback (a callback
# with side effects allowed): one io_callback equation at every size.
import jax
import numpy as np
from jax.experimental import io_callback


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
    return io_callback(_on_host, shape, a, b)
