# expect: inefficient via retrace; examples passed, property passed
# why: right values, but jnp.mean is jitted on the raw array: one trace per distinct length.
import jax
import jax.numpy as jnp

_mean = jax.jit(jnp.mean)


def bucketed_mean(x):
    if x.shape[0] == 0:
        return 0.0
    return _mean(x)
