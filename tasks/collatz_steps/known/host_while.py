# expect: inefficient via sync; examples passed, property passed, retrace passed
# why: right counts, but the loop condition is read on the host: bool() waits for the device every iteration.
import jax
import jax.numpy as jnp


@jax.jit
def _step(v, steps):
    active = v != 1
    following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
    return jnp.where(active, following, v), steps + active


def collatz_steps(n):
    v, steps = n, jnp.zeros_like(n)
    while bool(jnp.any(v != 1)):
        v, steps = _step(v, steps)
    return steps
