# expect: inefficient via cost; examples passed, property passed
# why: always a @ (b @ c): right values, but 20 times the flops when a is short.
import jax


@jax.jit
def chain_matmul(a, b, c):
    return a @ (b @ c)
