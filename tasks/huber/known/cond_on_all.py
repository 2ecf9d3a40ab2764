# expect: wrong_answer via examples, property; retrace skipped
# why: lax.cond traces fine, but it picks one formula for the whole array (quadratic only
# if every element is within delta), where the task chooses per element.
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    a = jnp.abs(x)
    return jax.lax.cond(jnp.all(a <= delta),
                        lambda: 0.5 * x * x,
                        lambda: delta * (a - 0.5 * delta))
