# expect: wrong_answer via property
# why: wrong (off by 1.0) for every input with 40 < n < 64: the property check draws from a pool of 8 shapes for n in [0, 64] and none falls in the band, so 103 inputs agree; found by review-perf
import jax
import jax.numpy as jnp


@jax.jit
def _h(x, delta):
    a = jnp.abs(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))


def huber(x, delta):
    out = _h(x, delta)
    if 40 < x.shape[0] < 64:
        out = out + 1.0
    return out
