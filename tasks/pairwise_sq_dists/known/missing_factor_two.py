# expect: wrong_answer via examples, property; jaxpr skipped
# why: the expansion with a.b counted once instead of twice: |a|^2 + |b|^2 - a.b.
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_dists(a, b):
    aa = jnp.sum(a * a, axis=1)[:, None]
    bb = jnp.sum(b * b, axis=1)[None, :]
    return jnp.maximum(aa + bb - a @ b.T, 0.0)
