# expect: wrong_answer via examples, property; retrace skipped
# why: zeroes the dropped elements but forgets to scale the survivors by 1 / (1 - rate),
# so the expected value of the output shrinks; right only for rate = 0.
import jax
import jax.numpy as jnp


@jax.jit
def dropout(key, x, rate):
    return jnp.where(jax.random.bernoulli(key, 1 - rate, x.shape), x, 0.0)
