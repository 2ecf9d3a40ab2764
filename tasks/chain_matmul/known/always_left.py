# expect: inefficient via cost; examples passed, property passed
# why: always (a @ b) @ c: right values, but 20 times the reference's flops when c is narrow (81,920 against 4,096).
import jax


@jax.jit
def chain_matmul(a, b, c):
    return (a @ b) @ c
