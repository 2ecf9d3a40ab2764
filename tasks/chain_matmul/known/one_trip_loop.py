# expect: accepted; cost passed
# why: the cheaper order, computed inside a lax.fori_loop of one trip: a loop that runs
# once costs its body once, and the flops are the reference's.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def chain_matmul(a, b, c):
    n, k = a.shape
    m, p = c.shape
    left = n * k * m + n * m * p <= k * m * p + n * k * p
    product = (lambda: (a @ b) @ c) if left else (lambda: a @ (b @ c))
    out = jnp.zeros((n, p), a.dtype)
    return lax.fori_loop(0, 1, lambda i, o: o + product(), out)
