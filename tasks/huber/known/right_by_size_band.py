# expect: accepted
# why: a right answer that takes another (equal) formula for 40 < n < 64: a band of sizes on its own road is not wrong in itself, so covering every band must not make the checks stricter
import jax
import jax.numpy as jnp


@jax.jit
def _select(x, delta):
    a = jnp.abs(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))


@jax.jit
def _clipped(x, delta):
    a = jnp.abs(x)
    q = jnp.minimum(a, delta)
    return 0.5 * q ** 2 + delta * (a - q)


def huber(x, delta):
    return _clipped(x, delta) if 40 < x.shape[0] < 64 else _select(x, delta)
