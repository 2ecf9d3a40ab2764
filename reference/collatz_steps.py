import jax
import jax.numpy as jnp
from jax import lax


def _not_done(state):
    values, _ = state
    return jnp.any(values != 1)


def _step(state):
    values, steps = state
    active = values != 1
    following = jnp.where(values % 2 == 0, values // 2, 3 * values + 1)
    return jnp.where(active, following, values), steps + active.astype(jnp.int32)


@jax.jit
def collatz_steps(n):
    # The loop runs on the device until every element has reached 1; its condition is
    # a traced boolean, so the host never has to look at the values.
    _, steps = lax.while_loop(_not_done, _step, (n, jnp.zeros_like(n)))
    return steps
