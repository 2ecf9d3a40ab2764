# expect: runtime_error via examples, property; retrace skipped
# why: jits both arguments, so degree is a tracer and range(degree) cannot take it.
import jax
import jax.numpy as jnp


@jax.jit
def truncated_exp(x, degree):
    term = jnp.ones_like(x)
    total = jnp.ones_like(x)
    for k in range(1, degree + 1):
        term = term * x / k
        total = total + term
    return total
