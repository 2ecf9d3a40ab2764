# expect: inefficient via retrace
# why: the seed chapter's make_step(lr) factory: each call bakes the rate into a new
# inner function, and jit compiles every one of them.
import jax


def make_update(lr):
    @jax.jit
    def update(params, grads):
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)

    return update


def tree_sgd(params, grads, lr):
    return make_update(lr)(params, grads)
