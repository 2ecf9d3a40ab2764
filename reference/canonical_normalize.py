import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    # dtype is part of the cache key: convert every input kind (a list, NumPy float64,
    # float32 or int32, JAX float32) to one float32 array before the jitted core.
    return _normalize(jnp.asarray(x, dtype=jnp.float32))
