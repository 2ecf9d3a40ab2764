# expect: wrong_answer via property
# why: picks int32 as the one dtype: floats are truncated (2.7 becomes 2) before normalising.
import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    return _normalize(jnp.asarray(x, dtype=jnp.int32))
