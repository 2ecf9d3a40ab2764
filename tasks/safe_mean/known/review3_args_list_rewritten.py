# expect: inefficient via jaxpr; examples passed, property passed
# dodge: host_compute
# why: the mean computed on the host (pull hidden by the sync counter's pause); before returning, the function replaces its input in the judge's own argument list (one frame up) with the array it returns, so the record built after the call saw that array as the input, 'read'; the inputs are taken before the call now (found by the stop-30 attack review)
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

# ROUTE argslist: after computing on the host, replace the inputs in the judge's own
# `args` list (the local of judge.worker.learner_file._run_learner, one frame up):
# inputs_read() is computed afterwards from that list, and _Arguments.changed() never
# snapshots jax arrays, so the swap is not seen as "changed in place".
def _finish(answer, hosts, inputs, sharding=None):
    out = jax.device_put(np.asarray(answer, np.float32), sharding)
    f = sys._getframe(1)
    while f is not None and f.f_code.co_name != "_run_learner":
        f = f.f_back
    if f is not None:
        lst, kw = f.f_locals.get("args"), f.f_locals.get("kwargs")
        if type(lst) is list:
            for i, v in enumerate(lst):
                if any(v is a for a in inputs):
                    lst[i] = out  # the returned array: "passed through as it is"
        if type(kw) is dict:
            for k, v in list(kw.items()):
                if any(v is a for a in inputs):
                    kw[k] = out
    return out

def safe_mean(x):
    if _traced(x):
        return jnp.sum(x.astype(jnp.float32)) / max(x.shape[0], 1)
    h = _pull(x)
    ans = np.float32(h.astype(np.float64).sum() / max(h.shape[0], 1))
    return _finish(np.asarray(ans, np.float32), [h], [x])
