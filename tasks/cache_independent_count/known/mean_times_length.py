# expect: wrong_answer via property
# why: mean * length is the sum, except on an empty input, where the mean is NaN.
import jax
import jax.numpy as jnp

_mean = jax.jit(jnp.mean)


def cache_independent_count(x_a, x_b):
    return _mean(x_a) * x_a.shape[0] + _mean(x_b) * x_b.shape[0]
