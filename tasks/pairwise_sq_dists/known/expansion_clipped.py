# expect: accepted; jaxpr passed
# why: the matmul form |a|^2 + |b|^2 - 2 a.b, with the rounding below zero clipped: less
# accurate for near rows than the direct form, but within the tolerance, and never negative.
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_dists(a, b):
    aa = jnp.sum(a * a, axis=1)[:, None]
    bb = jnp.sum(b * b, axis=1)[None, :]
    return jnp.maximum(aa + bb - 2.0 * (a @ b.T), 0.0)
