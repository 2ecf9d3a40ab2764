# expect: inefficient via jaxpr; examples passed, property passed
# dodge: trace_switch
# why: broadcasting when traced; when called (a concrete jax.Array), one jitted call per
# row of a, stacked in Python: the trace the judge measures is one small program at
# every size, the calls run n programs, a number that grows with the size.
import jax
import jax.numpy as jnp

_row = jax.jit(lambda ai, b: jnp.sum((ai[None, :] - b) ** 2, axis=-1))


def pairwise_sq_dists(a, b):
    if isinstance(a, jax.core.Tracer) or a.shape[0] == 0:
        return jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
    return jnp.stack([_row(a[i], b) for i in range(a.shape[0])])
