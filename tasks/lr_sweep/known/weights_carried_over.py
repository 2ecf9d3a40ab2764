# expect: wrong_answer via property; examples passed, retrace skipped
# why: forgets to restart from w0 for each rate: the second rate continues from where
# the first one stopped (the statement's first example cannot tell: its first rate is
# 0, and its last one converges in one step from anywhere).
import jax
import jax.numpy as jnp
from jax import lax


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def descend(w, x, y, lr, steps):
    return lax.fori_loop(0, steps, lambda _, w: w - lr * jax.grad(mse)(w, x, y), w)


def lr_sweep(w0, x, y, lrs, steps):
    losses, w = [], w0
    for lr in lrs:
        w = descend(w, x, y, lr, steps)
        losses.append(mse(w, x, y))
    return jnp.array(losses, dtype=jnp.float32)
