# expect: wrong_answer via examples, property
# why: alpha on the old average and 1 - alpha on the new value: the weights are swapped (right only for alpha = 0.5).
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def ema_scan(x, alpha):
    if x.shape[0] == 0:
        return x

    def step(y, x_t):
        y = (1 - alpha) * x_t + alpha * y
        return y, y

    _, rest = lax.scan(step, x[0], x[1:])
    return jnp.concatenate([x[:1], rest])
