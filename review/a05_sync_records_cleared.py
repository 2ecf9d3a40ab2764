# target 2: host syncs every step (a Python loop pulling the value back each time), then
# the sync counter's own record list is emptied (found through gc): it is not among the
# objects the instruments' check compares.  Should be: inefficient / a failed sync check.
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
