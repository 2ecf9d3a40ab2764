# expect: inefficient via donation; examples passed, property passed, retrace passed
# why: right values, but nothing is donated: every step allocates a second copy of the parameters.
import jax


@jax.jit
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
