# expect: inefficient via retrace; examples passed, property passed
# dodge: host_compute
# why: a plain Python sum over the items (x.tolist()) and one jitted division of two
# scalars on the device: programs run, but none of them reads the input x.
import jax
import jax.numpy as jnp

_divide = jax.jit(lambda total, n: jnp.where(n > 0, total / jnp.maximum(n, 1), 0.0))


def bucketed_mean(x):
    total = sum(x.tolist())
    return _divide(jnp.float32(total), jnp.float32(x.shape[0])).astype(jnp.float32)
