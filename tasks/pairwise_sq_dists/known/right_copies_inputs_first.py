# expect: accepted; jaxpr passed
# why: copies both inputs on the device (jnp.array, an eager copy; jax.device_put to the default device) before the jitted vmap form: the programs of each call read the copies, whose values are the inputs', so the off-device rule is satisfied; a right answer must not be taken for one computed on the host (stop-30 review)
import jax
import jax.numpy as jnp


@jax.jit
def _dists(a, b):
    return jax.vmap(lambda ai: jax.vmap(lambda bj: jnp.sum((ai - bj) ** 2))(b))(a)


def pairwise_sq_dists(a, b):
    return _dists(jnp.array(a), jax.device_put(b))
