# expect: wrong_answer via examples, property
# why: fori_loop(0, n + 1, ...): one step too many, so n = 0 changes x.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def run_steps_no_sync(x, n):
    return lax.fori_loop(0, n + 1, lambda i, v: 0.5 * jnp.tanh(v) + 0.25 * v, x)
