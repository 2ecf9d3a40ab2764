# expect: inefficient via jaxpr; examples passed, property passed
# dodge: host_compute
# why: the mean computed on the host (pull hidden by the sync counter's pause), and a jitted program that takes every input and uses none, so that a program 'read' each: jax leaves an argument a program does not use out of it (ExecuteReplicated's kept_var_idx), and only the arguments kept count as read now (found by the stop-30 attack review)
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

# ROUTE token (documented limitation): a jitted program that takes every input and
# does nothing with it (pjit drops unused arguments only inside
# ExecuteReplicated.__call__, after the recorder saw them); the answer is host-made.
_touch = jax.jit(lambda *a: jnp.float32(0))


def _finish(answer, hosts, inputs, sharding=None):
    _touch(*inputs)
    return jax.device_put(np.asarray(answer, np.float32), sharding)

def safe_mean(x):
    if _traced(x):
        return jnp.sum(x.astype(jnp.float32)) / max(x.shape[0], 1)
    h = _pull(x)
    ans = np.float32(h.astype(np.float64).sum() / max(h.shape[0], 1))
    return _finish(np.asarray(ans, np.float32), [h], [x])
