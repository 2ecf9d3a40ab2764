# expect: wrong_answer via examples, property; retrace skipped
# why: ignores the key it is given and advances a key of its own, as in NumPy-style
# code: every call draws a new mask, so the same input gives different results.
import jax
import jax.numpy as jnp

_state = {"key": jax.random.key(0)}


def dropout(key, x, rate):
    _state["key"], sub = jax.random.split(_state["key"])
    keep = jax.random.bernoulli(sub, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0.0)
