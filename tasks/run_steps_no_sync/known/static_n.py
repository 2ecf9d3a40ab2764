# expect: inefficient via retrace; examples passed, property passed, sync passed
# why: the loop count is a static argument, so every new n is a new trace and compile.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def run_steps_no_sync(x, n):
    for _ in range(n):
        x = 0.5 * jnp.tanh(x) + 0.25 * x
    return x
