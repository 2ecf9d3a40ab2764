# expect: runtime_error via examples, property; retrace skipped
# why: a shortcut for the common case, `if jnp.all(|x| <= delta)`: under jit the
# condition is a traced boolean, and Python cannot branch on it.
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    a = jnp.abs(x)
    if jnp.all(a <= delta):
        return 0.5 * x * x
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))
