# expect: accepted; jaxpr passed
# why: not jitted; an empty side gives the empty answer without touching the other input: a call with an empty input is not weighed by the off-device rule (was inefficient, found by the stop-30 attack review)
import jax
import jax.numpy as jnp



def pairwise_sq_dists(a, b):
    n, m = a.shape[0], b.shape[0]
    if n == 0 or m == 0:
        return jnp.zeros((n, m), jnp.float32)
    diff = a[:, None, :] - b[None, :, :]
    return jnp.sum(diff * diff, axis=-1)
