# expect: inefficient via residuals; examples passed, property passed, gradient passed
# why: checkpoints each layer with the dots_saveable policy, which keeps every matmul's output: almost as much as no remat at all.
import jax
import jax.numpy as jnp

_layer = jax.checkpoint(lambda w, h: jnp.tanh(w @ h),
                        policy=jax.checkpoint_policies.dots_saveable)


@jax.jit
def remat_tanh_stack(ws, x):
    h = x
    for w in ws:
        h = _layer(w, h)
    return jnp.sum(h)
