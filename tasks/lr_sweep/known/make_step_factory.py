# expect: inefficient via retrace
# why: the seed chapter's make_step(lr) factory: every rate of every call is a new
# jitted closure, and each one compiles (27 traces for the script's 27 rates).
import jax
import jax.numpy as jnp


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


def make_step(lr):
    @jax.jit
    def step(w, x, y):
        return w - lr * jax.grad(mse)(w, x, y)

    return step


def lr_sweep(w0, x, y, lrs, steps):
    losses = []
    for lr in lrs:
        step = make_step(lr)
        w = w0
        for _ in range(steps):
            w = step(w, x, y)
        losses.append(mse(w, x, y))
    return jnp.array(losses, dtype=jnp.float32)
