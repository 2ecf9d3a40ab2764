import jax
import jax.numpy as jnp


@jax.jit
def _normalize(x):
    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)


def canonical_normalize(x):
    # x: a list of Python floats, a NumPy float64, float32 or int32 array, or a JAX
    # float32 array; length 2 to 64.
    # Convert x to one dtype before calling _normalize, so that all five kinds share
    # one trace per length.  Return a float32 JAX array.
    raise NotImplementedError("convert x to one float32 form, then call _normalize")
