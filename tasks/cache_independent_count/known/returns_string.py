# expect: wrong_answer via examples
# why: formats the answer as text.
import jax
import jax.numpy as jnp

_sum = jax.jit(jnp.sum)


def cache_independent_count(x_a, x_b):
    return f"{float(_sum(x_a) + _sum(x_b)):.3f}"
