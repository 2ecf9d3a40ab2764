# control for a01: a fresh public jax.jit on every call, nothing hidden (must be caught)
import functools
import jax
import jax.numpy as jnp

def cache_independent_count(x_a, x_b):
    return jax.jit(functools.partial(jnp.sum))(x_a) + jax.jit(functools.partial(jnp.sum))(x_b)
