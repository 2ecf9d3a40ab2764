# expect: wrong_answer via examples, property; retrace skipped
# why: returns the flat list of updated leaves instead of a dict of the same structure.
import jax


@jax.jit
def _sgd(leaves, grad_leaves, lr):
    return [p - lr * g for p, g in zip(leaves, grad_leaves)]


def tree_sgd(params, grads, lr):
    return _sgd(jax.tree.leaves(params), jax.tree.leaves(grads), lr)
