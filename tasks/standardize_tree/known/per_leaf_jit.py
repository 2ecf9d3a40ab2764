# expect: inefficient via retrace
# why: jits the work of one leaf and maps it over the dict in Python: a trace per
# distinct leaf shape and a dispatch per leaf on every call, instead of one program.
import jax
import jax.numpy as jnp


@jax.jit
def _one(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def standardize_tree(params):
    return {k: _one(v) for k, v in params.items()}
