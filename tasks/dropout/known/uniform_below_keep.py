# expect: accepted
# why: an unusual right answer: jax.random.bernoulli(key, p, shape) is defined as
# uniform(key, shape) < p, so writing that comparison out gives the very same mask.
import jax
import jax.numpy as jnp


@jax.jit
def dropout(key, x, rate):
    keep_prob = 1 - rate
    keep = jax.random.uniform(key, x.shape, dtype=keep_prob.dtype) < keep_prob
    return jnp.where(keep, x, 0.0) / keep_prob
