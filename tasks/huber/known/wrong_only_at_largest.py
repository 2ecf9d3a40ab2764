# expect: wrong_answer via property
# why: wrong only at the largest length the statement allows (n = 64), right at every other: the shape pool always holds each dimension at its maximum, so the property check reaches it
import jax
import jax.numpy as jnp


@jax.jit
def _h(x, delta):
    a = jnp.abs(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))


def huber(x, delta):
    out = _h(x, delta)
    if x.shape[0] == 64:
        out = out * 1.5
    return out
