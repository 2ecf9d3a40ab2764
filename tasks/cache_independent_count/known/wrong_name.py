# expect: invalid_submission
# why: the entrypoint is misspelt.
import jax
import jax.numpy as jnp

_sum = jax.jit(jnp.sum)


def cache_independant_count(x_a, x_b):
    return _sum(x_a) + _sum(x_b)
