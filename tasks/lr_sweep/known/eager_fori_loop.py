# expect: inefficient via retrace
# why: nothing jitted, but an unjitted lax.fori_loop whose body closes over the rate: jax
# compiles the loop as one program, again for every rate of every call (27 compiles in
# the script), although no jax.jit appears in the file.
import jax
import jax.numpy as jnp
from jax import lax


def _loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


_grad = jax.grad(_loss)


def lr_sweep(w0, x, y, lrs, steps):
    losses = []
    for lr in lrs:
        w = lax.fori_loop(0, steps, lambda i, w: w - lr * _grad(w, x, y), w0)
        losses.append(_loss(w, x, y))
    return jnp.asarray(losses, dtype=jnp.float32).reshape(len(lrs))
