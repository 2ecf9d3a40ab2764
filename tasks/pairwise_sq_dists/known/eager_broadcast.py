# expect: accepted; jaxpr passed
# why: broadcasting, not jitted: called for values, it runs a few eager operations, the
# same at every size, as many as its trace has equations; what the calls run is what
# the trace shows.
import jax.numpy as jnp


def pairwise_sq_dists(a, b):
    return jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
