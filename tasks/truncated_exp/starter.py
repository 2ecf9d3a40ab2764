import jax
import jax.numpy as jnp

# Step 1: write the series as a function of x and degree, and jit it ONCE, here at
#         module level, with degree marked static (static_argnums or static_argnames).


def truncated_exp(x, degree):
    # Step 2: call your jitted function; do not build a new jax.jit(...) per call.
    # The answer is 1 + x + x**2/2! + ... + x**degree/degree!, elementwise, the same
    # shape as x (degree 0 gives ones).
    raise NotImplementedError("sum x**k / k! for k = 0..degree with a static degree")
