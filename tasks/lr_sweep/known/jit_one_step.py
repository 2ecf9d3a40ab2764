# expect: accepted; retrace passed
# why: jits a single step with the rate as an argument and loops in Python: one trace
# for the step and one for the loss, whatever the rates and step counts.
import jax
import jax.numpy as jnp


@jax.jit
def loss(w, x, y):
    r = x @ w - y
    return jnp.mean(r * r)


@jax.jit
def step(w, x, y, lr):
    r = x @ w - y
    return w - lr * (2.0 / x.shape[0]) * (x.T @ r)


def lr_sweep(w0, x, y, lrs, steps):
    out = []
    for lr in lrs:
        w = w0
        for _ in range(steps):
            w = step(w, x, y, lr)
        out.append(loss(w, x, y))
    return jnp.asarray(out, dtype=jnp.float32)
