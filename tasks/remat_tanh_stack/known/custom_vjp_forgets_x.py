# expect: wrong_answer via gradient; examples passed, property passed
# why: a hand-written remat whose backward returns the weights' gradients but zeros for x.
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
    _, pullback = jax.vjp(lambda ws: _stack(ws, x), ws)
    (d_ws,) = pullback(g)
    return d_ws, jnp.zeros_like(x)


remat_tanh_stack.defvjp(_forward, _backward)
