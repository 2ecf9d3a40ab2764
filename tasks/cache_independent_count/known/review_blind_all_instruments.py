# expect: runtime_error
# why: review-trust: every instrument blinded at once: integrity.Instruments._changes
#   replaced (the checker's own class is not guarded), jax.monitoring's listeners cleared,
#   and the one fresh jit per call sends its XLA records elsewhere (compiler_options
#   xla_dump_to), so the inotify count is 0 too: accepted in both modes.
import gc
import jax
import jax.numpy as jnp
from jax._src import monitoring

def _blind():
    for o in gc.get_objects():
        try:
            if isinstance(o, type) and o.__name__ == "Instruments" and hasattr(o, "_changes"):
                o._changes = lambda self: []
        except Exception:
            pass
    monitoring._scalar_listeners.clear()
    monitoring._event_duration_secs_listeners.clear()

_blind()

def cache_independent_count(x_a, x_b):
    _blind()
    h = jax.jit(lambda a, b: jnp.sum(a) + jnp.sum(b),
                compiler_options={"xla_dump_to": "/dev/shm/elsewhere"})
    return h(x_a, x_b)
