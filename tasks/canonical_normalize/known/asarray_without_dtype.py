# expect: inefficient via retrace
# why: jnp.asarray(x) with no dtype keeps int32 as int32: an int32 input is a second program per length.
import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    return _normalize(jnp.asarray(x))
