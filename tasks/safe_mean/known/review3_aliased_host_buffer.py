# expect: inefficient via jaxpr; examples passed, property passed
# dodge: host_compute
# why: no device program at all: the answer sits at the start of one aligned host buffer that also holds x's bytes; on the CPU device_put sends it without a copy, so the returned answer and the whole buffer had one address, and x's cached host copy (_npy_value, set by the function) vouched for the values; buffers are tied by address and size, the returned array no longer counts as read, and x's values are read from its device buffers (found by the stop-30 attack review)
import sys
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P


def _syncs():
    for m in list(sys.modules.values()):
        if hasattr(m, "SyncCounter") and hasattr(m, "_thread"):
            return m


def _pull(x):
    """x to the host, the pull hidden from the sync counter (accepted weakness)."""
    m = _syncs()
    m._thread.paused += 1
    try:
        h = np.array(x)
    finally:
        m._thread.paused -= 1
    return h


def _traced(*xs):
    return any(isinstance(x, jax.core.Tracer) for x in xs)

# ROUTE alias: no device program at all.  The answer is handed back by a zero-copy
# jax.device_put of the first bytes of a 64-byte-aligned host buffer that also holds
# every input's bytes; the whole buffer (and its int32 view) is device_put too.  On
# the CPU both device arrays sit at the buffer's address, and inputs_read() counted
# the returned array's address as "read", which ties the whole-buffer transfer (which
# holds each input's values, compared with x._npy_value) to a program read.
def _aligned(nbytes, align=64):
    raw = np.zeros(nbytes + align, np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + nbytes]


def _finish(answer, hosts, inputs, sharding=None):
    shape = np.shape(answer)
    answer = np.array(answer, np.float32).reshape(shape)
    for x, h in zip(inputs, hosts):
        try:
            x._npy_value = h  # the host copy jax would cache: the judge compares with it
        except Exception:
            pass
    parts = [answer.reshape(-1).view(np.uint8)] + [
        np.ascontiguousarray(h).reshape(-1).view(np.uint8) for h in hosts
    ]
    buf = _aligned(max(sum(p.size for p in parts), 64))
    at = 0
    for p in parts:
        buf[at:at + p.size] = p
        at += p.size
    keep = [jax.device_put(buf.view(dt)) for dt in sorted({str(h.dtype) for h in hosts} | {"float32"})]
    view = buf[: answer.nbytes].view(np.float32).reshape(shape)
    out = jax.device_put(view, sharding)
    del keep
    return out

def safe_mean(x):
    if _traced(x):
        return jnp.sum(x.astype(jnp.float32)) / max(x.shape[0], 1)
    h = _pull(x)
    ans = np.float32(h.astype(np.float64).sum() / max(h.shape[0], 1))
    return _finish(np.asarray(ans, np.float32), [h], [x])
