import jax


# One jitted update for any parameter tree.  The learning rate is an ordinary
# (traced) argument: a Python float is a weakly typed float32 scalar, so a new value
# costs no trace and does not promote the float32 parameters.  Dicts are flattened in
# sorted key order, so the order the keys were written in is not part of the cache key.
@jax.jit
def _sgd(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def tree_sgd(params, grads, lr):
    return _sgd(params, grads, lr)
