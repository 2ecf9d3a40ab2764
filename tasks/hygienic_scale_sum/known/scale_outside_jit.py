# expect: accepted; retrace passed
# why: keeps s out of the jitted code entirely: sum(x) * s is the same number, and only x's length can retrace.
import jax
import jax.numpy as jnp

_sum = jax.jit(jnp.sum)


def hygienic_scale_sum(x, s):
    return _sum(x) * jnp.float32(s)
