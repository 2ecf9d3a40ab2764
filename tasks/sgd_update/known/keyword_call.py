# expect: accepted; donation passed
# why: a donating jit called with keyword arguments: donate_argnames donates them by name all the same.
from functools import partial

import jax


@partial(jax.jit, donate_argnames="params")
def _step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def sgd_update(params, grads, lr):
    return _step(params=params, grads=grads, lr=lr)
