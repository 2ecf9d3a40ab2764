# expect: inefficient via retrace
# why: binds each rate with functools.partial and jits the result: a new partial object
# per rate, so jit can reuse nothing.
from functools import partial

import jax
import jax.numpy as jnp


def train(w0, x, y, steps, lr):
    loss = lambda w: jnp.mean((x @ w - y) ** 2)
    w = w0
    for _ in range(steps):
        w = w - lr * jax.grad(loss)(w)
    return loss(w)


def lr_sweep(w0, x, y, lrs, steps):
    return jnp.array([jax.jit(partial(train, lr=lr), static_argnums=3)(w0, x, y, steps)
                      for lr in lrs], dtype=jnp.float32)
