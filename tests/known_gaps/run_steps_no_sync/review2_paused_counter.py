# expect: inefficient (a host sync every step: two bool() pulls, hidden by raising the sync counter's per-thread pause around each)
import sys
import jax
import jax.numpy as jnp

_syncs = next(
    m
    for n, m in list(sys.modules.items())
    if n.endswith(".syncs") and hasattr(m, "SyncCounter") and hasattr(m, "_thread")
)


@jax.jit
def _step(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x


def run_steps_no_sync(x, n):
    # a Python loop on the host, with a host sync every step (the pattern the task forbids)
    x = jnp.asarray(x)
    i = 0
    while True:
        _syncs._thread.paused += 1
        try:
            done = bool(i >= n) or bool(jnp.isnan(x).any() & False)  # two pulls per step
        finally:
            _syncs._thread.paused -= 1
        if done:
            return x
        x = _step(x)
        i += 1
