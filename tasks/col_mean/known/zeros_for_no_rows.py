# expect: wrong_answer via sharding; examples passed, property passed
# why: right means, but the n = 0 branch returns a fresh jnp.zeros, which lands on one device, not on every device like the means of a non-empty x.
import jax
import jax.numpy as jnp


@jax.jit
def col_mean(x):
    if x.shape[0] == 0:
        return jnp.zeros(x.shape[1], x.dtype)
    return jnp.einsum("nd->d", x) / x.shape[0]
