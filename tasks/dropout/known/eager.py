# expect: accepted; retrace passed
# why: no jit at all: every operation runs eagerly with the key and rate as data; right
# values, and no jitted code for the retrace check to count.
import jax
import jax.numpy as jnp


def dropout(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), jnp.zeros_like(x))
