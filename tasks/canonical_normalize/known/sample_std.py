# expect: wrong_answer via examples, property
# why: ddof=1 divides by n - 1: the sample standard deviation, not the population one the task asks for.
import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x, ddof=1) + 1e-6)


def canonical_normalize(x):
    return _normalize(jnp.asarray(x, dtype=jnp.float32))
