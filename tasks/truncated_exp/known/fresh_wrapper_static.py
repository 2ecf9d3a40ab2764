# expect: accepted; retrace passed
# why: a new jax.jit wrapper on every call, but around the same module-level function
# with the same static_argnums: jit's cache belongs to the function, so nothing retraces.
import jax
import jax.numpy as jnp


def _series(x, degree):
    k = jnp.arange(1, degree + 1, dtype=x.dtype)
    terms = jnp.cumprod(x[:, None] / k, axis=1)  # x**k / k! for k = 1..degree
    return 1.0 + terms.sum(axis=1)


def truncated_exp(x, degree):
    return jax.jit(_series, static_argnums=1)(x, degree)
