# expect: wrong_answer via examples, property
# why: returns the exponential itself, ignoring the degree.
import jax
import jax.numpy as jnp

_exp = jax.jit(jnp.exp)


def truncated_exp(x, degree):
    return _exp(x)
