import jax
import jax.numpy as jnp


# jax.debug.print is an operation of the compiled program, not a Python side effect:
# it runs every time the program runs, cache hits included.  A Python print here would
# run only while JAX traces the function, once per new length.
@jax.jit
def logged_norm(x):
    norm = jnp.sqrt(jnp.sum(x * x))
    jax.debug.print("norm={norm}", norm=norm)
    return norm
