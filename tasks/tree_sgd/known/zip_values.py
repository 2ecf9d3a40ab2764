# expect: runtime_error via examples, property; retrace failed
# why: pairs parameters and gradients by position (dict insertion order) instead of by
# key: the statement's example pairs a sub-dict with an array and crashes, generated
# trees whose grads list their keys in another order crash the same way, and scripted
# calls with the keys of grads in another order get wrong values.
import jax


@jax.jit
def _step(p, g, lr):
    return p - lr * g


def _update(params, grads, lr):
    out = {}
    for (name, p), g in zip(params.items(), grads.values()):
        out[name] = _update(p, g, lr) if isinstance(p, dict) else _step(p, g, lr)
    return out


def tree_sgd(params, grads, lr):
    return _update(params, grads, lr)
