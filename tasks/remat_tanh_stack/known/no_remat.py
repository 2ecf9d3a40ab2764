# expect: inefficient via residuals; examples passed, property passed, gradient passed
# why: right value and gradient, but without jax.checkpoint the backward pass keeps every layer's tanh output and more (12 values at 6 layers, the reference 5).
import jax
import jax.numpy as jnp


@jax.jit
def remat_tanh_stack(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(w @ h)
    return jnp.sum(h)
