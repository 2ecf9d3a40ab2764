# expect: wrong_answer via examples, property; retrace skipped
# why: adds the gradient instead of subtracting it (gradient ascent).
import jax


@jax.jit
def _sgd(params, grads, lr):
    return jax.tree.map(lambda p, g: p + lr * g, params, grads)


def tree_sgd(params, grads, lr):
    return _sgd(params, grads, lr)
