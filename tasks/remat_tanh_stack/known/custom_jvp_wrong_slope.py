# expect: wrong_answer via gradient; examples passed, property passed, residuals skipped
# why: a custom_jvp tanh whose derivative is 1 - tanh instead of 1 - tanh**2: remat and values are right, every gradient is off.
import jax
import jax.numpy as jnp


@jax.custom_jvp
def _tanh(z):
    return jnp.tanh(z)


@_tanh.defjvp
def _tanh_jvp(primals, tangents):
    (z,), (dz,) = primals, tangents
    t = jnp.tanh(z)
    return t, (1 - t) * dz


_layer = jax.checkpoint(lambda w, h: _tanh(w @ h))


def remat_tanh_stack(ws, x):
    h = x
    for w in ws:
        h = _layer(w, h)
    return jnp.sum(h)
