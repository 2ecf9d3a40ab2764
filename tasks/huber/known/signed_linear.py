# expect: wrong_answer via examples, property
# why: uses x instead of |x| in the linear part: right for large positive x, negative
# (and wrong) for large negative x.
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    return jnp.where(jnp.abs(x) <= delta, 0.5 * x * x, delta * (x - 0.5 * delta))
