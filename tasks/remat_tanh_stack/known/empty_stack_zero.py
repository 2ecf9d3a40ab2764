# expect: wrong_answer via examples, property, gradient
# why: returns 0.0 for an empty stack, but zero layers leave h = x, so the answer is sum(x).
import jax
import jax.numpy as jnp


def _layer(w, h):
    return jnp.tanh(w @ h)


@jax.jit
def remat_tanh_stack(ws, x):
    if not ws:
        return jnp.zeros((), x.dtype)
    h = x
    for w in ws:
        h = jax.checkpoint(_layer)(w, h)
    return jnp.sum(h)
