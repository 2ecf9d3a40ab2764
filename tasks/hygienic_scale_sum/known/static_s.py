# expect: runtime_error; retrace skipped
# why: s as a static argument: a jnp.float32 scalar is not hashable, so jit refuses it.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    return _scaled_sum(x, s)
