import jax
import jax.numpy as jnp


@jax.jit
def safe_mean(x):
    # Print jax.make_jaxpr(safe_mean)(x) for an int32 and a float32 x, and read it:
    # every value must be float32 (or the int32 input), and nothing may be NaN.
    raise NotImplementedError("return the float32 mean of x, 0.0 when x is empty")
