import jax
import jax.numpy as jnp


# Define one jitted helper here, at module level.


def scale_preserve_dtype(x, factor):
    # x: a float16, bfloat16 or float32 JAX array (rank 0, 1 or 2; possibly empty)
    # factor: a Python float
    # Return x * factor with exactly x's dtype and shape; new factor values must not
    # make your jitted code trace again.
    raise NotImplementedError("scale x by factor without changing its dtype")
