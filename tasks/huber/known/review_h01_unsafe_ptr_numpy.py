# expect: inefficient via host_sync
# why: the Huber loss in NumPy on the host from inputs read through jax.Array.unsafe_buffer_pointer() and ctypes: no counted pull, and one eager op keeps the off-device rule quiet, found by review-perf; counted since: every door to the host copy is wrapped
# dodge: host_compute
import ctypes
import numpy as np
import jax.numpy as jnp


def _read(a):
    if a.size == 0:
        return np.zeros(a.shape, np.float32)
    return np.frombuffer(ctypes.string_at(a.unsafe_buffer_pointer(), a.size * 4), np.float32).reshape(a.shape)


def huber(x, delta):
    xv, d = _read(x), _read(delta)
    a = np.abs(xv)
    out = np.where(a <= d, 0.5 * xv * xv, d * (a - 0.5 * d)).astype(np.float32)
    return jnp.asarray(out) + 0
