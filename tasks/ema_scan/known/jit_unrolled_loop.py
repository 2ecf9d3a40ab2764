# expect: inefficient via program; examples passed, property passed
# why: the unrolled loop under jax.jit: right values, but the program holds one step per element, and compiling it grows with T (seconds at T=128); the verdict is about the program, not a time limit.
import jax
import jax.numpy as jnp


@jax.jit
def ema_scan(x, alpha):
    T = x.shape[0]
    y = jnp.zeros_like(x)
    if T == 0:
        return y
    prev = x[0]
    y = y.at[0].set(prev)
    for t in range(1, T):
        prev = alpha * x[t] + (1 - alpha) * prev
        y = y.at[t].set(prev)
    return y
