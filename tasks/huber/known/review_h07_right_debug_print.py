# expect: accepted
# why: a right program with a diagnostic jax.debug.print left in: such a print carries nothing the program uses, so the default host_sync check does not count it (a task about host syncs declares its own check, which does); found by review-perf, inefficient before
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    jax.debug.print("delta={d}", d=delta)
    a = jnp.abs(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))
