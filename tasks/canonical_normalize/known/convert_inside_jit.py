# expect: inefficient via retrace
# why: converts inside the jitted function, after the cache key is taken: a list of n floats is a pytree of n
# weak scalars, and int32 is another dtype, so each input kind costs its own trace.
import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    x = jnp.asarray(x, dtype=jnp.float32)
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    return _normalize(x)
