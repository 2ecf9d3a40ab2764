# expect: wrong_answer via examples, property; retrace skipped
# why: splits the key before sampling, as one should before drawing twice; but this
# function draws once and the statement prescribes the key as given: another mask.
import jax
import jax.numpy as jnp


@jax.jit
def dropout(key, x, rate):
    _, sub = jax.random.split(key)
    keep = jax.random.bernoulli(sub, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0.0)
