# expect: inefficient via program; examples passed, property passed
# why: a Python loop over t: right values, but tracing unrolls it, one copy of the step per element (45 equations at T=8, 765 at T=128).
import jax.numpy as jnp


def ema_scan(x, alpha):
    out = []
    for t in range(x.shape[0]):
        y = x[t] if t == 0 else alpha * x[t] + (1 - alpha) * out[-1]
        out.append(y)
    return jnp.stack(out) if out else x
