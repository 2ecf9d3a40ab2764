# expect: accepted; cost passed
# why: tells a trace from a call (isinstance(a, jax.core.Tracer)) but does the same work
# both ways: the cheaper order, eagerly when called, compiled when traced. What the calls
# run is what the trace shows, so the figure is the reference's.
import jax
import jax.numpy as jnp


def _cheap(a, b, c):
    n, k = a.shape
    m, p = c.shape
    return (a @ b) @ c if n * k * m + n * m * p <= k * m * p + n * k * p else a @ (b @ c)


_compiled = jax.jit(_cheap)


def chain_matmul(a, b, c):
    if isinstance(a, jax.core.Tracer):
        return _cheap(a, b, c)
    return _compiled(a, b, c)
