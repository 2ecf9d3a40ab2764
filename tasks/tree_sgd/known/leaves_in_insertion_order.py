# expect: wrong_answer via property
# why: walks both dicts in the order their keys were written and pairs the leaves by
# position: right whenever params and grads list their keys alike (the scripted calls
# and one statement example), wrong as soon as grads lists same-shaped leaves in
# another order.
import jax


def _leaves(tree):
    for value in tree.values():
        if isinstance(value, dict):
            yield from _leaves(value)
        else:
            yield value


def _rebuild(tree, leaves):
    return {k: _rebuild(v, leaves) if isinstance(v, dict) else next(leaves) for k, v in tree.items()}


@jax.jit
def _step(ps, gs, lr):
    return [p - lr * g for p, g in zip(ps, gs)]


def tree_sgd(params, grads, lr):
    return _rebuild(params, iter(_step(list(_leaves(params)), list(_leaves(grads)), lr)))
