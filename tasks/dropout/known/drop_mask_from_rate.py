# expect: wrong_answer via examples, property; retrace skipped
# why: draws the *drop* mask, bernoulli(key, rate), and keeps its complement: the right
# distribution, but not the mask bernoulli(key, 1 - rate) gives for the same key.
import jax
import jax.numpy as jnp


@jax.jit
def dropout(key, x, rate):
    drop = jax.random.bernoulli(key, rate, x.shape)
    return jnp.where(drop, 0.0, x / (1 - rate))
