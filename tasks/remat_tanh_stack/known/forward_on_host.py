# expect: inefficient via residuals; examples passed, property passed, gradient passed
# dodge: host_callback
# why: the forward pass runs in NumPy on the host through jax.pure_callback, under a
# custom_vjp that keeps only ws and x and recomputes on the device for the gradient:
# nothing but the arguments is saved, because the forward work left the device.
import jax
import jax.numpy as jnp
import numpy as np


def _stack_on_host(ws, x):
    h = np.asarray(x)
    for w in ws:
        h = np.tanh(np.asarray(w) @ h)
    return np.float32(np.sum(h))


def _stack_on_device(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(w @ h)
    return jnp.sum(h)


@jax.custom_vjp
def _stack(ws, x):
    return jax.pure_callback(_stack_on_host, jax.ShapeDtypeStruct((), x.dtype), ws, x)


def _forward(ws, x):
    return _stack(ws, x), (ws, x)


def _backward(saved, g):
    return jax.vjp(_stack_on_device, *saved)[1](g)


_stack.defvjp(_forward, _backward)


@jax.jit
def remat_tanh_stack(ws, x):
    return _stack(ws, x)
