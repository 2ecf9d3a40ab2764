# expect: inefficient via retrace; examples passed, property passed, sync passed
# why: the loop runs on the device, but the jitted function is a new closure on every call, so every call traces and compiles it again.
import jax
import jax.numpy as jnp
from jax import lax


def collatz_steps(n):
    def run(values):
        def step(state):
            v, k = state
            active = v != 1
            return jnp.where(active, jnp.where(v % 2 == 0, v // 2, 3 * v + 1), v), k + active.astype(jnp.int32)
        return lax.while_loop(lambda s: jnp.any(s[0] != 1), step, (values, jnp.zeros_like(values)))[1]
    return jax.jit(run)(n)
