# expect: inefficient via retrace
# why: marks lr static, so every new learning rate is a new cache key: one trace per
# rate instead of one per tree structure.
from functools import partial

import jax


@partial(jax.jit, static_argnames="lr")
def _sgd(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def tree_sgd(params, grads, lr):
    return _sgd(params, grads, lr=lr)
