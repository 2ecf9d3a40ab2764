# expect: wrong_answer via property
# why: sums in float16: too coarse for float32 inputs.
import jax
import jax.numpy as jnp

_sum = jax.jit(lambda v: jnp.sum(v.astype(jnp.float16)))


def cache_independent_count(x_a, x_b):
    return (_sum(x_a) + _sum(x_b)).astype(jnp.float32)
