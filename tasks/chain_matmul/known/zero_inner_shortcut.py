# expect: wrong_answer via property
# why: short-cuts k = 0 with zeros of shape [n, n] instead of [n, p]: right only when n = p (the all-empty input among them).
import jax.numpy as jnp


def chain_matmul(a, b, c):
    if a.shape[1] == 0:
        return jnp.zeros((a.shape[0], a.shape[0]), a.dtype)
    return jnp.linalg.multi_dot([a, b, c])
