# expect: wrong_answer via examples, property
# why: float(...) hands back a Python float (double precision), not the float32 scalar the task asks for.
import jax
import jax.numpy as jnp


@jax.jit
def _scaled_sum(x, s):
    return jnp.sum(x * s)


def hygienic_scale_sum(x, s):
    return float(_scaled_sum(x, jnp.float32(s)))
