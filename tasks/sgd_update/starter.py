import jax


@jax.jit   # the old parameters are dead after this step: let XLA write over them
def sgd_update(params, grads, lr):
    raise NotImplementedError("return params - lr * grads leaf by leaf, and donate params")
