# expect: accepted; cost passed
# why: the product in a jitted closure over the three matrices: jax makes the captured arrays the program's constants, not its arguments, and the recorder counts a program's constants as read (was inefficient, 'computed on the host', found by the stop-30 attack review)
import jax


def chain_matmul(a, b, c):
    n, k = a.shape
    m, p = c.shape
    left = n * k * m + n * m * p
    right = k * m * p + n * k * p
    return jax.jit(lambda: (a @ b) @ c if left <= right else a @ (b @ c))()
