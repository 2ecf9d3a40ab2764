# expect: runtime_error via examples, property
# why: jnp.stack of an empty list raises: no learning rates must give an empty array.
import jax
import jax.numpy as jnp
from jax import lax


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def final_loss(w0, x, y, lr, steps):
    w = lax.fori_loop(0, steps, lambda _, w: w - lr * jax.grad(mse)(w, x, y), w0)
    return mse(w, x, y)


def lr_sweep(w0, x, y, lrs, steps):
    return jnp.stack([final_loss(w0, x, y, lr, steps) for lr in lrs])
