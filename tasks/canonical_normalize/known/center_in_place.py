# expect: wrong_answer via property; examples passed, retrace skipped
# why: centres a NumPy float array in place (`x -= x.mean()`) before normalising: the
# values come out right, but the caller's array is changed (the statement's examples
# are a list and an int32 array, which it leaves alone).
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        x -= x.mean()
    return _normalize(jnp.asarray(x, dtype=jnp.float32))
