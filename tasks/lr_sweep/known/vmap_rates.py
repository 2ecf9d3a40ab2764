# expect: accepted; retrace passed
# why: an unusual valid answer: all rates at once with vmap over a float32 array of
# rates, steps static; one trace per (number of rates, step count), within the budget.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="steps")
def sweep(w0, x, y, lrs, steps):
    loss = lambda w: jnp.mean(jnp.square(jnp.einsum("nd,d->n", x, w) - y))

    def run(lr):
        w = w0
        for _ in range(steps):
            w = w - lr * jax.grad(loss)(w)
        return loss(w)

    return jax.vmap(run)(lrs)


def lr_sweep(w0, x, y, lrs, steps):
    return sweep(w0, x, y, jnp.asarray(lrs, dtype=jnp.float32).reshape(-1), steps)
