import jax
import jax.numpy as jnp


@jax.jit
def logged_norm(x):
    norm = jnp.sqrt(jnp.sum(x * x))
    # This line runs while JAX traces the function, not every time it is called.
    # Make the program print "norm=..." on every call instead.
    print("norm=", norm)
    raise NotImplementedError("print a line starting with norm= on every call, and return the norm")
