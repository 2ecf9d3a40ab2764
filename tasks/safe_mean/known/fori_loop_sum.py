# expect: accepted; jaxpr passed
# why: an unusual right answer: sums with lax.fori_loop, a loop in the program rather
# than unrolled into it, so the program has the same size at every length.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def safe_mean(x):
    xf = x.astype(jnp.float32)
    n = xf.shape[0]
    if n == 0:
        return jnp.float32(0.0)
    return lax.fori_loop(0, n, lambda i, total: total + xf[i], jnp.float32(0.0)) / n
