# expect: wrong_answer via property
# why: flattens both trees into {path: leaf} dicts, updates, then rebuilds the nesting
# from the paths: a nested dict with no leaves ({"opt": {}}) has no path, so it
# vanishes from the result.
import jax


def _flat(tree, prefix=()):
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_flat(value, prefix + (key,)))
        else:
            out[prefix + (key,)] = value
    return out


@jax.jit
def _step(params, grads, lr):
    return {path: p - lr * grads[path] for path, p in params.items()}


def tree_sgd(params, grads, lr):
    updated = _step(_flat(params), _flat(grads), lr)
    out: dict = {}
    for path, leaf in updated.items():
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = leaf
    return out
