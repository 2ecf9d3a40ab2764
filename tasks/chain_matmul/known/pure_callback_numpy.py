# expect: inefficient via cost; examples passed, property passed
# dodge: host_callback
# why: the cheaper order, but computed in NumPy on the host through jax.pure_callback:
# the compiled program is one custom call that XLA counts as no flops at all.
import jax
import numpy as np


def _on_host(a, b, c):
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    n, k = a.shape
    m, p = c.shape
    left = n * k * m + n * m * p <= k * m * p + n * k * p
    return ((a @ b) @ c if left else a @ (b @ c)).astype(np.float32)


@jax.jit
def chain_matmul(a, b, c):
    return jax.pure_callback(_on_host, jax.ShapeDtypeStruct((a.shape[0], c.shape[1]), a.dtype),
                             a, b, c)
