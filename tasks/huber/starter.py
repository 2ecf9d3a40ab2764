import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    # Quadratic near zero, linear beyond delta.  Under jit, x and delta are tracers:
    # an `if` on their values cannot work.  Compute both branches and choose per element.
    raise NotImplementedError("0.5 * x**2 where |x| <= delta, else delta * (|x| - 0.5 * delta)")
