# expect: inefficient via retrace
# why: built once, but with the learning rate static: every new rate is a new cache
# key and compiles again.
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@partial(jax.jit, static_argnames=("lr", "steps"))
def final_loss(w0, x, y, lr, steps):
    w = lax.fori_loop(0, steps, lambda _, w: w - lr * jax.grad(mse)(w, x, y), w0)
    return mse(w, x, y)


def lr_sweep(w0, x, y, lrs, steps):
    return jnp.array([final_loss(w0, x, y, lr=lr, steps=steps) for lr in lrs], dtype=jnp.float32)
