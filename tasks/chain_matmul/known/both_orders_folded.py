# expect: accepted; cost passed
# why: writes both orders and picks one with jnp.where on a condition known while tracing: XLA folds the constant choice and compiles only the cheaper order.
import jax
import jax.numpy as jnp


@jax.jit
def chain_matmul(a, b, c):
    n, k = a.shape
    m, p = c.shape
    left_is_cheaper = n * k * m + n * m * p <= k * m * p + n * k * p
    return jnp.where(left_is_cheaper, (a @ b) @ c, a @ (b @ c))
