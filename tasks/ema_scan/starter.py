import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def ema_scan(x, alpha):
    # y[0] = x[0]; y[t] = alpha * x[t] + (1 - alpha) * y[t - 1]
    # Carry the running average through lax.scan instead of a Python loop over t.
    raise NotImplementedError("write the step function and run it with lax.scan")
