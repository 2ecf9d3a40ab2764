# expect: accepted; donation passed, retrace passed
# why: flattens both trees, updates a list of leaves in a donating jit and rebuilds the tree: donation survives the detour.
import jax


def _update(leaves, grad_leaves, lr):
    return [p - lr * g for p, g in zip(leaves, grad_leaves)]


_update_leaves = jax.jit(_update, donate_argnums=0)


def sgd_update(params, grads, lr):
    leaves, tree = jax.tree.flatten(params)
    grad_leaves = tree.flatten_up_to(grads)
    return tree.unflatten(_update_leaves(leaves, grad_leaves, lr))
