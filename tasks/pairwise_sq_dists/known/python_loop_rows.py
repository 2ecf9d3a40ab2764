# expect: inefficient via jaxpr; property passed
# why: a Python loop over the rows of a, stacked: right values, but the loop runs while
# tracing and puts one copy of the row computation per row into the program, which grows
# with n (and compiles longer for every new n).
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_dists(a, b):
    if a.shape[0] == 0:
        return jnp.zeros((0, b.shape[0]), a.dtype)
    return jnp.stack([jnp.sum((b - a[i]) ** 2, axis=1) for i in range(a.shape[0])])
