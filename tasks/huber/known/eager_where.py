# expect: accepted; retrace passed
# why: no jit: jnp.where in eager mode is the same computation, one dispatched op at a
# time; right, and no jitted code to count.
import jax.numpy as jnp


def huber(x, delta):
    a = jnp.abs(x)
    return jnp.where(a > delta, delta * a - 0.5 * delta ** 2, 0.5 * jnp.square(x))
