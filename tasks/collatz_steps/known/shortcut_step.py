# expect: wrong_answer via examples, property
# why: counts (3v + 1) / 2 as a single step (the "shortcut" Collatz map): fewer steps than asked.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def collatz_steps(n):
    def body(state):
        v, steps = state
        active = v != 1
        following = jnp.where(v % 2 == 0, v // 2, (3 * v + 1) // 2)
        return jnp.where(active, following, v), steps + active.astype(jnp.int32)

    return lax.while_loop(lambda s: jnp.any(s[0] != 1), body, (n, jnp.zeros_like(n)))[1]
