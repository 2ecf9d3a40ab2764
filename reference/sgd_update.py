from functools import partial

import jax


@partial(jax.jit, donate_argnames="params")
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
