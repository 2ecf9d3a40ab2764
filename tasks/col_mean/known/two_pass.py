# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: a "stabler" second pass (mean + mean of the deviations) needs the first mean on every device before the second sum: two all-reduces.
import jax
import jax.numpy as jnp


@jax.jit
def col_mean(x):
    n = max(x.shape[0], 1)
    first = jnp.sum(x, axis=0) / n
    return first + jnp.sum(x - first, axis=0) / n
