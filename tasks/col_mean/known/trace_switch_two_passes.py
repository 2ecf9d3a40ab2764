# expect: inefficient via collectives; examples passed, property passed
# dodge: trace_switch
# why: one reduction when traced; when called, a jitted two-pass mean (the first mean on
# every device before the second sum: two all-reduces), chosen by the array's type.
import jax
import jax.numpy as jnp


@jax.jit
def _two_pass(x):
    n = max(x.shape[0], 1)
    first = jnp.sum(x, axis=0) / n
    return first + jnp.sum(x - first, axis=0) / n


def col_mean(x):
    if type(x).__name__ == "ArrayImpl":
        return _two_pass(x)
    return jnp.sum(x, axis=0) / max(x.shape[0], 1)
