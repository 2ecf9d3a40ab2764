# expect: wrong_answer via gradient; examples passed, property passed
# why: "saves memory" by cutting the graph between layers with stop_gradient: the value is right, but only the last layer gets a gradient.
import jax
import jax.numpy as jnp


@jax.jit
def remat_tanh_stack(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(w @ jax.lax.stop_gradient(h))
    return jnp.sum(h)
