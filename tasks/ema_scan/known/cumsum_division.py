# expect: wrong_answer via examples
# why: the "cumsum trick" divides by (1 - alpha)^t: alpha = 1 divides zero by zero, and for alpha near 1 the powers overflow float32.
import jax
import jax.numpy as jnp


@jax.jit
def ema_scan(x, alpha):
    t = jnp.arange(x.shape[0], dtype=x.dtype)
    keep = (1 - alpha) ** t
    scaled = jnp.where(t == 0, x, alpha * x) / keep
    return jnp.cumsum(scaled) * keep
