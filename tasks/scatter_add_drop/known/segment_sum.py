# expect: accepted; jaxpr passed
# why: an unusual right answer: jax.ops.segment_sum with n segments sums v by index and
# drops every id outside [0, n), negative ones included; then add x.
import jax
import jax.numpy as jnp


@jax.jit
def scatter_add_drop(x, idx, v):
    return x + jax.ops.segment_sum(v, idx, num_segments=x.shape[0])
