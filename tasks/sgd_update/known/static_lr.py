# expect: inefficient via host_sync; donation passed, retrace failed
# expect --strict: inefficient via retrace
# why: donates properly, but turns lr into a static Python float: float(lr) reads the
# learning rate back from the device on every call (the default host-sync count), and
# every new learning rate traces and compiles again.
from functools import partial

import jax


@partial(jax.jit, donate_argnums=0, static_argnums=2)
def _step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def sgd_update(params, grads, lr):
    return _step(params, grads, float(lr))
