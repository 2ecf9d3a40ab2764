# expect: accepted; retrace passed
# why: a more accurate answer is not a wrong one: the moments in float64 NumPy, the
# result converted to a float32 JAX array; nothing jitted for the retrace check to count.
import jax.numpy as jnp
import numpy as np


def canonical_normalize(x):
    v = np.asarray(x, dtype=np.float64)
    return jnp.asarray((v - v.mean()) / (v.std() + 1e-6), dtype=jnp.float32)
