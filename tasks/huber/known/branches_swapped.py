# expect: wrong_answer via examples, property; retrace skipped
# why: the condition is the wrong way round: linear near zero and quadratic in the tails.
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    a = jnp.abs(x)
    return jnp.where(a > delta, 0.5 * x * x, delta * (a - 0.5 * delta))
