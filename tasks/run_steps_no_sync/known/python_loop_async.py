# expect: accepted; retrace passed, sync passed
# why: a plain Python loop over a jitted step: n never reaches jit and nothing waits, so dispatch stays asynchronous.
import jax
import jax.numpy as jnp


@jax.jit
def _step(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x


def run_steps_no_sync(x, n):
    for _ in range(n):
        x = _step(x)
    return x
