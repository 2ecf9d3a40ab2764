# expect: runtime_error via instruments
# why: finds the judge's probe through gc and swaps the method that records events for
# one that drops them, then marks lr static (a trace per new rate). The probe's class
# no longer matches what the worker installed.
import gc
from functools import partial

import jax

for _obj in gc.get_objects():
    if type(_obj).__name__ == "Probe":
        type(_obj)._record = lambda self, event: None


@partial(jax.jit, static_argnames="lr")
def _sgd(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def tree_sgd(params, grads, lr):
    return _sgd(params, grads, lr=lr)
