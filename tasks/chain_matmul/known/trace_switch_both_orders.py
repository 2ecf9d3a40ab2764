# expect: inefficient via cost; examples passed, property passed
# dodge: trace_switch
# why: when called (not traced), computes both orders eagerly and keeps the cheaper
# one's value: the trace shows one cheap product, the calls run both, the expensive one
# included (core.trace_state_clean() tells the two apart as well as isinstance does).
import jax.numpy as jnp
from jax._src import core


def chain_matmul(a, b, c):
    n, k = a.shape
    m, p = c.shape
    left_is_cheaper = n * k * m + n * m * p <= k * m * p + n * k * p
    if core.trace_state_clean():
        left, right = (a @ b) @ c, a @ (b @ c)
        return left if left_is_cheaper else right
    return (a @ b) @ c if left_is_cheaper else a @ (b @ c)
