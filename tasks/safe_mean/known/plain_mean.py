# expect: wrong_answer via examples, property; jaxpr skipped
# why: jnp.mean alone: right for every non-empty input, but the mean of an empty array
# is 0 / 0 = NaN, and the task asks for 0.0.
import jax
import jax.numpy as jnp

safe_mean = jax.jit(jnp.mean)
