# expect: accepted; residuals passed, gradient passed
# why: jax.remat (checkpoint's other name) on each layer, with functools.reduce and no jit: what is saved does not depend on jit.
from functools import reduce

import jax
import jax.numpy as jnp


@jax.remat
def _layer(h, w):
    return jnp.tanh(jnp.dot(w, h))


def remat_tanh_stack(ws, x):
    return jnp.sum(reduce(_layer, ws, x))
