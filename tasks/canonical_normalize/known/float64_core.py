# expect: inefficient via host_sync
# dodge: host_compute
# why: a more accurate answer is not a wrong one, but the moments are taken in float64
# NumPy on the host: np.asarray pulls a JAX input back from the device (the default
# host-sync count names it), and the result is only put back as a float32 JAX array.
import jax.numpy as jnp
import numpy as np


def canonical_normalize(x):
    v = np.asarray(x, dtype=np.float64)
    return jnp.asarray((v - v.mean()) / (v.std() + 1e-6), dtype=jnp.float32)
