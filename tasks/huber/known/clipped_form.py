# expect: accepted
# why: an unusual right answer (optax's form): with q = min(|x|, delta), the loss is
# 0.5 q**2 + delta (|x| - q), one expression for both regions and no select.
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    a = jnp.abs(x)
    q = jnp.minimum(a, delta)
    return 0.5 * q ** 2 + delta * (a - q)
