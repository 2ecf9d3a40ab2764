# expect: wrong_answer via examples, property
# why: a hand-written gradient that drops the factor 2 of d/dw mean(r**2) = 2/n x^T r.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def final_loss(w0, x, y, lr, steps):
    n = x.shape[0]

    def step(_, w):
        r = x @ w - y
        return w - lr * (x.T @ r) / n

    w = lax.fori_loop(0, steps, step, w0)
    return jnp.mean((x @ w - y) ** 2)


def lr_sweep(w0, x, y, lrs, steps):
    return jnp.array([final_loss(w0, x, y, lr, steps) for lr in lrs], dtype=jnp.float32)
