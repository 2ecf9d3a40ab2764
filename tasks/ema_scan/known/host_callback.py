# expect: inefficient via program; examples passed, property passed
# why: the loop runs in NumPy inside jax.pure_callback: the program stays small only because the work left the device.
import jax
import jax.numpy as jnp
import numpy as np


def _ema_on_host(x, alpha):
    y = np.empty_like(x)
    for t in range(x.shape[0]):
        y[t] = x[t] if t == 0 else alpha * x[t] + (1 - alpha) * y[t - 1]
    return y


@jax.jit
def ema_scan(x, alpha):
    return jax.pure_callback(_ema_on_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, alpha)
