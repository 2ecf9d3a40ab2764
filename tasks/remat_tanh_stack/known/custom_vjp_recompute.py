# expect: accepted; residuals passed, gradient passed
# why: rematerialisation by hand: a custom_vjp whose forward keeps only the inputs and whose backward runs the stack again under jax.vjp.
import jax
import jax.numpy as jnp


def _stack(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(w @ h)
    return jnp.sum(h)


@jax.custom_vjp
def remat_tanh_stack(ws, x):
    return _stack(ws, x)


def _forward(ws, x):
    return _stack(ws, x), (ws, x)


def _backward(saved, g):
    ws, x = saved
    _, pullback = jax.vjp(_stack, ws, x)
    return pullback(g)


remat_tanh_stack.defvjp(_forward, _backward)
