# expect: accepted; sharding passed, collectives passed
# why: puts x on its own layout again (jax.device_put(x)) before the jitted sum: the program reads the array device_put gives, whose values are x's, so the off-device rule is satisfied; a right answer must not be taken for one computed on the host (stop-30 review)
import jax
import jax.numpy as jnp


@jax.jit
def _means(x):
    return jnp.sum(x, axis=0) / max(x.shape[0], 1)


def col_mean(x):
    return _means(jax.device_put(x))
