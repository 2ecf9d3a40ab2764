# expect: inefficient (a host sync every step: two bool() pulls, whose records the function deletes from the sync counter, with its tally, before it returns)
import sys
import jax
import jax.numpy as jnp

_syncs = next(
    m
    for n, m in list(sys.modules.items())
    if n.endswith(".syncs") and hasattr(m, "SyncCounter")
)


@jax.jit
def _step(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x


def run_steps_no_sync(x, n):
    x = jnp.asarray(x)
    i = 0
    while not bool(i >= n) and not bool(jnp.isnan(x).any() & False):  # two pulls a step
        x = _step(x)
        i += 1
    counter = _syncs._current
    counter._records.clear()
    counter._appended = 0
    return x
