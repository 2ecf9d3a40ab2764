import jax


@jax.jit
def chain_matmul(a, b, c):
    n, k = a.shape          # shapes are static: the choice is made while tracing
    m, p = c.shape
    left = n * k * m + n * m * p      # multiply-adds of (a @ b) @ c
    right = k * m * p + n * k * p     # and of a @ (b @ c)
    return (a @ b) @ c if left <= right else a @ (b @ c)
