# expect: inefficient via cost; examples passed, property passed
# dodge: loop_flops
# why: the same expensive order, one row of a per lax.scan step: the scan compiles to a
# loop XLA knows runs n times, and counts once.
import jax
from jax import lax


@jax.jit
def chain_matmul(a, b, c):
    _, rows = lax.scan(lambda carry, row: (carry, (row @ b) @ c), None, a)
    return rows.reshape(a.shape[0], c.shape[1])
