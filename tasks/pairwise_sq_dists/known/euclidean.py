# expect: wrong_answer via examples, property; jaxpr skipped
# why: returns the distances themselves (with a square root), not their squares.
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_dists(a, b):
    return jnp.sqrt(jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1))
