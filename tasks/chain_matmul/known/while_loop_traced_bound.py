# expect: inefficient via cost; examples passed, property passed
# dodge: loop_flops
# why: the rows loop with its bound computed from the arrays (n + 0 * a[0, 0], always n):
# XLA cannot know how often it runs, so no figure of its flops can be had; against a
# reference without such a loop that fails closed.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def chain_matmul(a, b, c):
    n = a.shape[0]
    if n == 0 or a.shape[1] == 0:
        return jnp.zeros((n, c.shape[1]), a.dtype) if n == 0 else (a @ b) @ c
    bound = n + (0 * a[0, 0]).astype(jnp.int32)
    def step(state):
        i, out = state
        return i + 1, out.at[i].set((a[i] @ b) @ c)
    out = jnp.zeros((n, c.shape[1]), a.dtype)
    return lax.while_loop(lambda s: s[0] < bound, step, (0, out))[1]
