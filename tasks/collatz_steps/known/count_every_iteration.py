# expect: wrong_answer via examples, property
# why: adds 1 to every element on every iteration: each element gets the slowest element's count.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def collatz_steps(n):
    def body(state):
        v, steps = state
        following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
        return jnp.where(v != 1, following, v), steps + 1

    return lax.while_loop(lambda s: jnp.any(s[0] != 1), body, (n, jnp.zeros_like(n)))[1]
