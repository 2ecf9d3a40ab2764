# expect: inefficient via host_sync
# dodge: host_compute
# why: canonicalises with NumPy instead of JAX: np.asarray(x, np.float32) is one dtype
# too, so one trace per length, but it pulls a JAX input back to the host to do it and
# sends it to the device again (the default host-sync count names it; jnp.asarray does
# the same on the device).
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    return _normalize(np.asarray(x, dtype=np.float32))
