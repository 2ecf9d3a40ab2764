# expect: accepted; retrace passed
# why: turns the rate into a Python float outside jit and passes 1 - rate on as an
# ordinary argument: a weakly typed float32, the same abstract value for every rate, so
# one trace (the float() waits for the value: not what this task measures).
import jax
import jax.numpy as jnp


@jax.jit
def _dropout(key, x, keep):
    return jnp.where(jax.random.bernoulli(key, keep, x.shape), x / keep, 0.0)


def dropout(key, x, rate):
    return _dropout(key, x, 1.0 - float(rate))
