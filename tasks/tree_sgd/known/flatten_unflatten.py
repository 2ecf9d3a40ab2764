# expect: accepted; retrace passed
# why: an unusual valid answer: flattens both trees by hand (sorted keys), jits a
# function of two lists, and rebuilds the dict from the params' treedef.
import jax


@jax.jit
def _update(leaves, grad_leaves, lr):
    return [p - lr * g for p, g in zip(leaves, grad_leaves)]


def tree_sgd(params, grads, lr):
    leaves, treedef = jax.tree.flatten(params)
    grad_leaves, grad_def = jax.tree.flatten(grads)
    assert treedef == grad_def, "params and grads must have the same structure"
    return jax.tree.unflatten(treedef, _update(leaves, grad_leaves, lr))
