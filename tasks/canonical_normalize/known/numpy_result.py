# expect: wrong_answer via examples, property
# why: right float32 numbers, but handed back as a NumPy array, not the JAX array the task asks for.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    return np.asarray(_normalize(jnp.asarray(x, dtype=jnp.float32)))
