# expect: accepted; retrace passed, sync passed
# why: parity with & 1, halving with a shift, and the step counter summed from a boolean carry: the same loop in bit operations.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def _count(n):
    def cond(state):
        return jnp.any(state[0] > 1)

    def body(state):
        v, k = state
        odd = (v & 1) == 1
        nxt = jnp.where(odd, v * 3 + 1, v >> 1)
        live = v > 1
        return jnp.where(live, nxt, v), k + live.astype(k.dtype)

    return lax.while_loop(cond, body, (n, jnp.zeros(n.shape, jnp.int32)))[1]


def collatz_steps(n):
    return _count(n)
