# expect: accepted; retrace passed
# why: a hand-written recursion that jits the update of one leaf: it traces once per
# leaf shape, which on the scripted models is no more than once per structure.
import jax


@jax.jit
def _leaf_update(p, g, lr):
    return p - lr * g


def tree_sgd(params, grads, lr):
    return {k: tree_sgd(v, grads[k], lr) if isinstance(v, dict) else _leaf_update(v, grads[k], lr)
            for k, v in params.items()}
