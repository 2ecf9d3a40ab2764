# expect: accepted; program passed
# why: the closed form y = W @ x with W[t, s] = alpha (1 - alpha)^(t - s) (and (1 - alpha)^t in column 0): T^2 work, but a program of fixed size.
import jax
import jax.numpy as jnp


@jax.jit
def ema_scan(x, alpha):
    T = x.shape[0]
    t = jnp.arange(T)
    lag = t[:, None] - t[None, :]
    power = (1 - alpha) ** jnp.maximum(lag, 0).astype(x.dtype)
    first = jnp.where(t[None, :] == 0, 1.0, alpha).astype(x.dtype)
    weights = jnp.where(lag >= 0, first * power, 0.0)
    return weights @ x
