# expect: accepted; retrace passed, sync passed
# why: a scalar while_loop for one start, vectorised with jax.vmap: vmap turns it into one masked loop itself.
import jax
import jax.numpy as jnp
from jax import lax


def _one(v):
    def body(state):
        v, k = state
        return jnp.where(v % 2 == 0, v // 2, 3 * v + 1), k + 1

    return lax.while_loop(lambda s: s[0] != 1, body, (v, jnp.int32(0)))[1]


collatz_steps = jax.jit(jax.vmap(_one))
