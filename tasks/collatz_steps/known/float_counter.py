# expect: wrong_answer via examples, property
# why: the right loop, but the counter starts as jnp.zeros(n.shape), which is float32: the result has the wrong dtype.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def collatz_steps(n):
    def body(state):
        v, steps = state
        active = v != 1
        following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
        return jnp.where(active, following, v), steps + active

    return lax.while_loop(lambda s: jnp.any(s[0] != 1), body, (n, jnp.zeros(n.shape)))[1]
