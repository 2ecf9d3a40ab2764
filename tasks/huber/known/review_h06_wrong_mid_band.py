# expect: wrong_answer via property
# why: wrong (off by 1.0) for every input with 40 < n < 64, right elsewhere: the shape pool holds one size in each band of n's range (48-55 and 56-63 lie inside this one), so some generated input falls in it; found by review-perf, accepted before (a pool of 8 random shapes over n in [0, 64] drew none of these sizes)
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
