import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def ema_scan(x, alpha):
    if x.shape[0] == 0:          # a static shape: decided while tracing
        return x

    def step(y, x_t):
        y = alpha * x_t + (1 - alpha) * y
        return y, y

    _, rest = lax.scan(step, x[0], x[1:])
    return jnp.concatenate([x[:1], rest])
