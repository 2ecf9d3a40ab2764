# expect: runtime_error via instruments
# why: replaces the recorder's Executions.inputs_read with one that says every input was read, then computes on the host: the recorder's class, its transfers' class and its module are in the integrity check now (found by the stop-30 attack review)
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

# ROUTE recorder: the record the rule rests on is made by the judge's Executions
# object in this very process, and integrity.py never snapshots its class or its
# module (only the jax attributes it patched, in Executions.guards).  Replace its
# inputs_read, once, while the file loads: every non-empty array leaf "was read".
def _patch():
    for m in list(sys.modules.values()):
        cls = getattr(m, "Executions", None)
        if isinstance(cls, type) and hasattr(cls, "inputs_read"):
            def inputs_read(self, leaves, log, returned=()):
                return [None if not int(getattr(l, "size", 0) or 0) or not getattr(l, "shape", ())
                        else True for l in leaves]
            cls.inputs_read = inputs_read


_patch()


def _finish(answer, hosts, inputs, sharding=None):
    return jax.device_put(np.asarray(answer, np.float32), sharding)

def chain_matmul(a, b, c):
    if _traced(a, b, c):
        n, k = a.shape
        m, p = c.shape
        left = n * k * m + n * m * p
        right = k * m * p + n * k * p
        return (a @ b) @ c if left <= right else a @ (b @ c)
    ha, hb, hc = _pull(a), _pull(b), _pull(c)
    ans = (ha.astype(np.float64) @ hb.astype(np.float64)) @ hc.astype(np.float64)
    return _finish(ans.astype(np.float32), [ha, hb, hc], [a, b, c])
