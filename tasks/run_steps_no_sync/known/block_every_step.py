# expect: inefficient via sync; examples passed, property passed, retrace passed
# why: block_until_ready() after each step "to be safe" serialises host and device: a wait per step.
import jax
import jax.numpy as jnp


@jax.jit
def _step(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x


def run_steps_no_sync(x, n):
    for _ in range(n):
        x = _step(x).block_until_ready()
    return x
