# expect: wrong_answer via property
# why: canonicalises s to float16: one trace per length, but s loses precision (3.1 becomes 3.099609375).
import jax
import jax.numpy as jnp


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    return _scaled_sum(x, jnp.asarray(s, dtype=jnp.float16))
