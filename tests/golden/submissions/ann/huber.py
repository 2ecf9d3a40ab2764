import jax
import jax.numpy as jnp


# Both branches are computed for every element and jnp.where picks one per element: a
# choice made by the data, inside the program, so a new delta is new data for the same
# program.  A Python `if` would need a concrete value at trace time.
@jax.jit
def huber(x, delta):
    a = jnp.abs(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))
