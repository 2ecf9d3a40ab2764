# expect: accepted; cost passed
# why: not jitted; a product with a zero-size dimension is zeros of the right shape, read from no input: not weighed by the off-device rule (was inefficient, found by the stop-30 attack review)
import jax
import jax.numpy as jnp



def chain_matmul(a, b, c):
    n, k = a.shape
    m, p = c.shape
    if 0 in (n, k, m, p):
        return jnp.zeros((n, p), jnp.float32)
    left = n * k * m + n * m * p
    right = k * m * p + n * k * p
    return (a @ b) @ c if left <= right else a @ (b @ c)
