# expect: runtime_error via examples
# why: x.astype(...) works on arrays, but a Python list has no .astype method.
import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    return _normalize(x.astype(jnp.float32))
