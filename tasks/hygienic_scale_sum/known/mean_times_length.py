# expect: wrong_answer via examples, property
# why: mean * length equals the sum, except on an empty x, where the mean is NaN.
import jax
import jax.numpy as jnp


@jax.jit
def _scaled_mean(x, s):
    return jnp.mean(x * s)


def hygienic_scale_sum(x, s):
    return _scaled_mean(x, jnp.float32(s)) * x.shape[0]
