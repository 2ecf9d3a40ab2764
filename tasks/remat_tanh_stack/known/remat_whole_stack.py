# expect: accepted; residuals passed, gradient passed
# why: one jax.checkpoint around the whole stack: nothing but the arguments is kept, and the backward pass recomputes every layer.
import jax
import jax.numpy as jnp


def _stack(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(w @ h)
    return jnp.sum(h)


remat_tanh_stack = jax.jit(jax.checkpoint(_stack))
