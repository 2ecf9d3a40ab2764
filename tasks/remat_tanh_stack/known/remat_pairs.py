# expect: accepted; residuals passed, gradient passed
# why: checkpoints blocks of two layers: it keeps only every other layer's input, fewer values than the reference.
import jax
import jax.numpy as jnp


@jax.checkpoint
def _block(ws, h):
    for w in ws:
        h = jnp.tanh(w @ h)
    return h


@jax.jit
def remat_tanh_stack(ws, x):
    h = x
    for i in range(0, len(ws), 2):
        h = _block(ws[i:i + 2], h)
    return jnp.sum(h)
