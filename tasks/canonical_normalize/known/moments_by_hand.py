# expect: accepted; retrace passed
# why: writes the population std out by hand (root of the mean squared deviation): the same float32 numbers.
import jax
import jax.numpy as jnp


def _normalize(x):
    centred = x - x.mean()
    std = jnp.sqrt(jnp.mean(jnp.square(centred)))
    return centred / (std + 1e-6)


_normalize_jit = jax.jit(_normalize)


def canonical_normalize(x):
    return _normalize_jit(jnp.asarray(x, jnp.float32))
