# expect: inefficient via program; examples passed, property passed
# why: the same unrolled loop written with y.at[t].set: every step is a scatter, and the program still grows with T.
import jax.numpy as jnp


def ema_scan(x, alpha):
    y = jnp.zeros_like(x)
    for t in range(x.shape[0]):
        y = y.at[t].set(x[t] if t == 0 else alpha * x[t] + (1 - alpha) * y[t - 1])
    return y
