# expect: inefficient via residuals; examples passed, property passed, gradient passed
# why: a checkpointed lax.scan over jnp.stack(ws): few values, but the stacked copy of every weight (6 KB at 6 layers of 16 x 16) is kept for the backward pass.
import jax
import jax.numpy as jnp
from jax import lax


@jax.checkpoint
def _step(h, w):
    return jnp.tanh(w @ h), None


@jax.jit
def remat_tanh_stack(ws, x):
    if not ws:
        return jnp.sum(x)
    h, _ = lax.scan(_step, x, jnp.stack(ws))
    return jnp.sum(h)
