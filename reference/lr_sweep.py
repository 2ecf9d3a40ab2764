import jax
import jax.numpy as jnp
from jax import lax


def _mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


# Built once: the learning rate and the step count are arguments, not constants baked
# into a new function, so every rate and every step count reuses one compiled program
# per data shape.
@jax.jit
def _final_mse(w0, x, y, lr, steps):
    def step(_, w):
        return w - lr * jax.grad(_mse)(w, x, y)

    w = lax.fori_loop(0, steps, step, w0)
    return _mse(w, x, y)


def lr_sweep(w0, x, y, lrs, steps):
    losses = [_final_mse(w0, x, y, lr, steps) for lr in lrs]
    return jnp.array(losses, dtype=jnp.float32)
