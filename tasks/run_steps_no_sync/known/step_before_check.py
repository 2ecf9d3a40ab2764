# expect: wrong_answer via examples, property
# why: a do-while: applies the first step before looking at n, so n = 0 still takes one step.
import jax
import jax.numpy as jnp
from jax import lax


def _step(x):
    return 0.5 * jnp.tanh(x) + 0.25 * x


@jax.jit
def run_steps_no_sync(x, n):
    def body(state):
        i, v = state
        return i + 1, _step(v)

    _, out = lax.while_loop(lambda s: s[0] < n, body, (1, _step(x)))
    return out
