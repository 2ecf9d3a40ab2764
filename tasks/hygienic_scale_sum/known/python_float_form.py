# expect: accepted; retrace passed
# why: the canonical form may be the weak one too: float(s) always gives jit a weak float32.
import jax
import jax.numpy as jnp


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    return _scaled_sum(x, float(s))
