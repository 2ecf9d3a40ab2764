# expect: runtime_error
# why: review-trust: host syncs on every step, then the sync counter's record list is emptied
#   through gc; the instruments' check never compares it, so the report said 0 syncs and
#   accepted (both modes).  Blinding the counter is tampering (runtime_error), or at the
#   least the syncs must count (inefficient via sync).
import gc
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def _one(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x

def _blind():
    for o in gc.get_objects():
        if type(o).__name__ == "SyncCounter" and hasattr(o, "_records"):
            o._records.clear()

def run_steps_no_sync(x, n):
    for _ in range(int(n)):          # int(n): a host sync when n is an array
        x = _one(x)
        np.asarray(x)                # a host sync on every step
        float(jnp.sum(x))            # and another
    _blind()
    return x
