# expect: inefficient via sync; examples passed, property passed, retrace passed
# why: right values, but float() of a progress statistic every step makes the host wait each time.
import jax
import jax.numpy as jnp


@jax.jit
def _step(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x


def run_steps_no_sync(x, n):
    history = []
    for _ in range(n):
        x = _step(x)
        history.append(float(jnp.sum(jnp.abs(x))))
    return x
