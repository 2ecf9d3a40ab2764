# expect: accepted
# why: value_and_grad computes the loss too; nothing uses it, so XLA drops its reduction and one all-reduce remains.
import jax
import jax.numpy as jnp


def loss(w, x, y):
    return jnp.mean(jnp.square(jnp.dot(x, w) - y))


@jax.jit
def dp_sgd_step(w, x, y, lr):
    _, g = jax.value_and_grad(loss)(w, x, y)
    return w - lr * g
