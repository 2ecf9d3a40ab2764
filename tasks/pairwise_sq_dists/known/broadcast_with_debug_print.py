# expect: accepted; jaxpr passed
# why: broadcasting, with a jax.debug.print of the shapes left in: a debug print copies
# what it prints to the host, but computes nothing the result uses; the judge does not
# count it as work off the device (a callback that computes does: pure_callback_loops).
import jax
import jax.numpy as jnp


@jax.jit
def pairwise_sq_dists(a, b):
    jax.debug.print("largest |a|: {}", jnp.max(jnp.abs(a), initial=0.0))
    diff = a[:, None, :] - b[None, :, :]
    return jnp.sum(diff * diff, axis=-1)
