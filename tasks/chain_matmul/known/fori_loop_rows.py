# expect: inefficient via cost; examples passed, property passed
# dodge: loop_flops
# why: (a @ b) @ c, the expensive way round, one row of a per lax.fori_loop trip: XLA's
# cost analysis counts the loop body once (one row, 1,280 flops on 64 x 8, 8 x 64,
# 64 x 2), but the body runs n times: 81,920 flops against the reference's 4,096.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def chain_matmul(a, b, c):
    out = jnp.zeros((a.shape[0], c.shape[1]), a.dtype)
    if a.shape[0] == 0:
        return out
    return lax.fori_loop(0, a.shape[0], lambda i, o: o.at[i].set((a[i] @ b) @ c), out)
