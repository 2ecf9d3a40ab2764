# expect: accepted; cost passed
# why: right, with no jax.jit: the cheaper order picked from the shapes, two eager
# matrix products on every call (and none on an empty chain).  Every value call is
# weighed against the reference's on the same input: an eager right answer does the
# reference's work, and must pass.
import jax.numpy as jnp


def chain_matmul(a, b, c):
    n, k = a.shape
    m, p = c.shape
    if n * k * m + n * m * p <= k * m * p + n * k * p:
        return jnp.matmul(jnp.matmul(a, b), c)
    return jnp.matmul(a, jnp.matmul(b, c))
