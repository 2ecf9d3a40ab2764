# expect: accepted; retrace passed
# why: converts lr to a strongly typed float32 scalar at the call site: one form for
# every call, so still one trace per structure, and float32 results.
import jax
import jax.numpy as jnp


@jax.jit
def _sgd(params, grads, lr):
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def tree_sgd(params, grads, lr):
    return _sgd(params, grads, jnp.float32(lr))
