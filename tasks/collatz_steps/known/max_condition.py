# expect: runtime_error via property; examples passed
# why: loops while jnp.max(v) > 1: right for every non-empty input, but max() of an empty array fails.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def collatz_steps(n):
    def body(state):
        v, steps = state
        active = v > 1
        following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
        return jnp.where(active, following, v), steps + active.astype(jnp.int32)

    return lax.while_loop(lambda s: jnp.max(s[0]) > 1, body, (n, jnp.zeros_like(n)))[1]
