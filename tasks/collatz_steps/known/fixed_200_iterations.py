# expect: wrong_answer via examples; retrace skipped, sync skipped
# why: a fixed fori_loop of 200 masked steps: right for 99.5% of starts, but 6171 needs 261
# (random inputs rarely find the 47 slow starts; the example and the scripted slow starts do).
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def collatz_steps(n):
    def body(i, state):
        v, steps = state
        active = v != 1
        following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
        return jnp.where(active, following, v), steps + active.astype(jnp.int32)

    return lax.fori_loop(0, 200, body, (n, jnp.zeros_like(n)))[1]
