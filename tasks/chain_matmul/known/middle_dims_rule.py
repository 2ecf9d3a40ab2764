# expect: inefficient via cost; examples passed, property passed
# why: a rule of thumb (multiply first where the inner dimension k is smaller than m) instead of counting: wrong on shapes where n or p decides.
import jax


@jax.jit
def chain_matmul(a, b, c):
    k, m = b.shape
    return (a @ b) @ c if k < m else a @ (b @ c)
