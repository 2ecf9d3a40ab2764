# expect: inefficient via cost; examples passed, property passed
# dodge: loop_flops
# why: the same expensive order in a lax.while_loop counting rows up to n: XLA works out
# that it runs n times (known_trip_count), and its cost analysis counts the body once.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def chain_matmul(a, b, c):
    def step(state):
        i, out = state
        return i + 1, out.at[i].set((a[i] @ b) @ c)
    out = jnp.zeros((a.shape[0], c.shape[1]), a.dtype)
    if a.shape[0] == 0:
        return out
    return lax.while_loop(lambda s: s[0] < a.shape[0], step, (0, out))[1]
