import jax
import jax.numpy as jnp

# Step 1: define one jitted jnp.sum helper here, outside the entrypoint.


def cache_independent_count(x_a, x_b):
    # Step 2: call the helper on each input.
    # Step 3: add the two scalar results and return the sum.
    raise NotImplementedError("call your jitted helper on x_a and x_b and add the results")
