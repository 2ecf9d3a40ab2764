# expect: wrong_answer via examples, property
# why: starts the average from zero, so y[0] = alpha * x[0] instead of x[0].
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def ema_scan(x, alpha):
    def step(y, x_t):
        y = alpha * x_t + (1 - alpha) * y
        return y, y

    _, y = lax.scan(step, jnp.zeros((), x.dtype), x)
    return y
