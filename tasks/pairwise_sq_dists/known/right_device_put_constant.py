# expect: accepted; jaxpr passed, host_sync passed
# why: sends a constant from the host to the device in every call (jax.device_put of a NumPy array, then a factor of one): a transfer to the device, never a pull back; the judge's own look at the new buffer counted as the learner's .unsafe_buffer_pointer() pull until stop 30
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _dists(a, b):
    return jax.vmap(lambda ai: jax.vmap(lambda bj: jnp.sum((ai - bj) ** 2))(b))(a)


def pairwise_sq_dists(a, b):
    one = jax.device_put(np.ones((), np.float32))  # a constant sent to the device
    return _dists(a, b) * one
