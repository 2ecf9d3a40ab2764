# expect: inefficient via jaxpr; property passed
# why: adds the elements one by one in a Python loop: the loop runs while tracing and
# unrolls into the program, two equations per element (258 at n = 64, where the
# reference has 4).
import jax
import jax.numpy as jnp


@jax.jit
def safe_mean(x):
    total = jnp.float32(0.0)
    for i in range(x.shape[0]):
        total = total + x[i]
    return total / max(x.shape[0], 1)
