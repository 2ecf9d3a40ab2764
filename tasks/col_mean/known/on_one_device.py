# expect: wrong_answer via sharding; examples passed, property passed
# why: right means, moved to device 0 alone: the task asks for them on every device.
import jax
import jax.numpy as jnp


@jax.jit
def _means(x):
    return jnp.sum(x, axis=0) / max(x.shape[0], 1)


def col_mean(x):
    return jax.device_put(_means(x), jax.devices()[0])
