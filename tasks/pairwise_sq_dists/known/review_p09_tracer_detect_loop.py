# expect: inefficient via jaxpr; examples passed, property passed
# dodge: trace_switch
# why: vmap only when traced (isinstance(a, jax.core.Tracer)), which is all the jaxpr check ever measures; every real call runs a Python double loop of eager per-pair ops: the program measured is not what the calls run (same root as chain_matmul's review_m01), found by review-perf
import jax
import jax.numpy as jnp


def pairwise_sq_dists(a, b):
    if isinstance(a, jax.core.Tracer):
        return jax.vmap(lambda ai: jax.vmap(lambda bj: jnp.sum((ai - bj) ** 2))(b))(a)
    rows = [jnp.stack([jnp.sum((a[i] - b[j]) ** 2) for j in range(b.shape[0])]) if b.shape[0]
            else jnp.zeros((0,), jnp.float32) for i in range(a.shape[0])]
    return jnp.stack(rows) if rows else jnp.zeros((0, b.shape[0]), jnp.float32)
