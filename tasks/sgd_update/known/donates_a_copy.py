# expect: inefficient via donation; examples passed, property passed
# why: copies the parameters and donates the copy: the caller's parameters are never freed, and the copy costs a third buffer.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=0)
def _step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def sgd_update(params, grads, lr):
    return _step(jax.tree.map(jnp.copy, params), grads, lr)
