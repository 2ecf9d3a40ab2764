# expect: runtime_error via instruments
# why: empties jax's monitoring listener lists, so the judge's probe hears of no trace at
# all, then builds a fresh jit on every call. The worker sees its listeners gone, and XLA
# (watched from outside the worker) compiled more programs than the probe saw.
import jax
from jax._src import monitoring

monitoring._scalar_listeners.clear()
monitoring._event_duration_secs_listeners.clear()


def scale_preserve_dtype(x, factor):
    return jax.jit(lambda v: v * factor)(x)
