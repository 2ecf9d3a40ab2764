import jax
import jax.numpy as jnp


# The key and the rate are ordinary traced arguments: a new key or a new rate is new
# data for the same program, so one trace serves them all.  The mask comes from exactly
# the call the statement prescribes, so the same key gives the same mask everywhere.
@jax.jit
def dropout(key, x, rate):
    keep_prob = 1.0 - rate
    keep = jax.random.bernoulli(key, keep_prob, x.shape)
    return jnp.where(keep, x / keep_prob, 0.0)
