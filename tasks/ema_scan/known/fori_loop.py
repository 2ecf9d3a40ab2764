# expect: accepted; program passed
# why: lax.fori_loop writing y[t] in place: constant bounds make it a scan, one body whatever T is.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def ema_scan(x, alpha):
    if x.shape[0] == 0:
        return x

    def body(t, y):
        return y.at[t].set(alpha * x[t] + (1 - alpha) * y[t - 1])

    return lax.fori_loop(1, x.shape[0], body, x)
