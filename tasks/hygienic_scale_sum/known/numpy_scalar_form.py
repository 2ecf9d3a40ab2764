# expect: accepted; retrace passed
# why: canonicalises to np.float32 instead of a JAX scalar: still one strong float32 form, one trace per length.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    return _scaled_sum(x, np.float32(s))
