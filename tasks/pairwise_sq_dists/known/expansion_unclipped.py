# expect: wrong_answer via examples, property
# why: the matmul form without the clip: for equal (or nearly equal) rows, rounding
# leaves tiny negative "squared distances", such as -1.9e-06.
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_dists(a, b):
    aa = jnp.sum(a * a, axis=1)[:, None]
    bb = jnp.sum(b * b, axis=1)[None, :]
    return aa + bb - 2 * a @ b.T
