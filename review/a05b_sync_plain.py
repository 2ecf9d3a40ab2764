# control for a05: the same syncs without blinding (must be caught)
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def _one(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x

def run_steps_no_sync(x, n):
    for _ in range(int(n)):
        x = _one(x)
        np.asarray(x)
        float(jnp.sum(x))
    return x
