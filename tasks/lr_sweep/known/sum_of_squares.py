# expect: wrong_answer via examples, property
# why: descends on the sum of squared errors, not their mean: each step is n times too
# large (the returned loss is also the sum).
import jax
import jax.numpy as jnp
from jax import lax


def sse(w, x, y):
    return jnp.sum((x @ w - y) ** 2)


@jax.jit
def final_loss(w0, x, y, lr, steps):
    w = lax.fori_loop(0, steps, lambda _, w: w - lr * jax.grad(sse)(w, x, y), w0)
    return sse(w, x, y)


def lr_sweep(w0, x, y, lrs, steps):
    return jnp.array([final_loss(w0, x, y, lr, steps) for lr in lrs], dtype=jnp.float32)
