# expect: accepted; retrace passed, sync passed
# why: lax.while_loop with the step counter in the carry and n traced: the general form of fori_loop.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def _run(x, n):
    def body(carry):
        k, v = carry
        return k - 1, 0.5 * jnp.tanh(v) + 0.25 * v

    return lax.while_loop(lambda c: c[0] > 0, body, (n, x))[1]


def run_steps_no_sync(x, n):
    return _run(x, jnp.int32(n))
