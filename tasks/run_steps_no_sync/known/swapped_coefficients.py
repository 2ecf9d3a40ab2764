# expect: wrong_answer via examples, property
# why: 0.25 * tanh(x) + 0.5 * x: the coefficients are swapped.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def run_steps_no_sync(x, n):
    return lax.fori_loop(0, n, lambda i, v: 0.25 * jnp.tanh(v) + 0.5 * v, x)
