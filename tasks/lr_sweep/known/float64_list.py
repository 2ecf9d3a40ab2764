# expect: wrong_answer via examples, property; retrace skipped
# why: right losses, but collected with float() into a NumPy array: float64, not the
# float32 array the statement asks for.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def final_loss(w0, x, y, lr, steps):
    w = lax.fori_loop(0, steps, lambda _, w: w - lr * jax.grad(mse)(w, x, y), w0)
    return mse(w, x, y)


def lr_sweep(w0, x, y, lrs, steps):
    return np.array([float(final_loss(w0, x, y, lr, steps)) for lr in lrs])
