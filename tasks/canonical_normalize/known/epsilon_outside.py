# expect: wrong_answer via examples
# why: (x - mean) / std + 1e-6 adds the epsilon after dividing: a constant input gives 0 / 0 = NaN.
import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / jnp.std(x) + 1e-6


def canonical_normalize(x):
    return _normalize(jnp.asarray(x, dtype=jnp.float32))
