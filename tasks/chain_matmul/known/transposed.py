# expect: wrong_answer via examples, property
# why: returns (a @ b @ c).T, the transpose of the product: the shape is [p, n] instead of [n, p].
import jax


@jax.jit
def chain_matmul(a, b, c):
    return (a @ (b @ c)).T
