# expect: inefficient via cost; examples passed, property passed
# why: computes the transpose chain (c.T @ b.T) @ a.T and transposes it back: right values, but it is (a @ b) @ c in disguise, the expensive order when c is narrow.
import jax


@jax.jit
def chain_matmul(a, b, c):
    return (c.T @ (b.T @ a.T)).T
