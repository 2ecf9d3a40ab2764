# expect: inefficient via jaxpr; examples passed, property passed
# dodge: host_callback
# why: one row at a time through lax.map, each row's distances a NumPy loop called back
# on the host: the callback sits inside the loop's body, and under a custom_jvp rule,
# so the program is a handful of equations at every size.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def _row_on_host(ai, b):
    ai, b = np.asarray(ai), np.asarray(b)
    return np.array([np.sum((ai - bj) ** 2) for bj in b], np.float32).reshape(b.shape[0])


@jax.custom_jvp
def _row(ai, b):
    return jax.pure_callback(_row_on_host, jax.ShapeDtypeStruct((b.shape[0],), ai.dtype), ai, b)


@_row.defjvp
def _row_jvp(primals, tangents):
    ai, b = primals
    dai, db = tangents
    diff = ai[None, :] - b
    return _row(ai, b), jnp.sum(2 * diff * (dai[None, :] - db), axis=1)


@jax.jit
def pairwise_sq_dists(a, b):
    return lax.map(lambda ai: _row(ai, b), a)
