# expect: wrong_answer via sharding; examples passed, property passed
# why: right weights, then moved to device 0 alone (to save them from there): the other devices lose their copy.
import jax
import jax.numpy as jnp


@jax.jit
def _step(w, x, y, lr):
    return w - lr * jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)


def dp_sgd_step(w, x, y, lr):
    return jax.device_put(_step(w, x, y, lr), jax.devices()[0])
