# expect: inefficient via sync
# why: np.tanh typed for jnp.tanh: the values are right (numpy computes the step on the
# host), but every step reads x back from the device through numpy's C path (the buffer
# protocol), which no Python-level hook sees.
import jax.numpy as jnp
import numpy as np


def run_steps_no_sync(x, n):
    for _ in range(n):
        x = 0.5 * np.tanh(x) + 0.25 * x
    return jnp.asarray(x, dtype=jnp.float32)
