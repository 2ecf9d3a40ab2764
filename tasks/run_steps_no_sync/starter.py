import jax
import jax.numpy as jnp
from jax import lax


def _step(i, x):
    # One update: x <- 0.5 * tanh(x) + 0.25 * x   (i is the loop counter, unused)
    raise NotImplementedError("write one step of the update")


@jax.jit
def _run(x, n):
    # Run _step n times on the device; n is traced, so one compile serves every n.
    raise NotImplementedError("loop on the device with lax.fori_loop")


def run_steps_no_sync(x, n):
    return _run(x, n)
