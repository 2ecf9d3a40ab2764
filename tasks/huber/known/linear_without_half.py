# expect: wrong_answer via examples, property; retrace skipped
# why: writes the linear part as delta * (|x| - delta): it no longer meets the
# quadratic part at |x| = delta (0.5 delta**2 against 0).
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    a = jnp.abs(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - delta))
