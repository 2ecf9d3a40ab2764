# expect: inefficient via jaxpr; examples passed, property passed
# dodge: trace_switch
# why: vmap when traced; when called (trace_state_clean()), a jitted program written as a
# Python loop over the rows of b, unrolled into m copies of the row computation: the
# trace is constant, the program the calls run grows with m.
import jax
import jax.numpy as jnp
from jax._src import core


@jax.jit
def _unrolled(a, b):
    cols = [jnp.sum((a - b[j]) ** 2, axis=-1) for j in range(b.shape[0])]
    return jnp.stack(cols, axis=1) if cols else jnp.zeros((a.shape[0], 0), a.dtype)


def pairwise_sq_dists(a, b):
    if core.trace_state_clean():
        return _unrolled(a, b)
    return jax.vmap(lambda ai: jax.vmap(lambda bj: jnp.sum((ai - bj) ** 2))(b))(a)
