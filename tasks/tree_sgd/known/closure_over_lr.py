# expect: inefficient via retrace
# why: a fresh jitted lambda closes over lr on every call: a new function object each
# time, so every call traces, whatever the rate or structure.
import jax


def tree_sgd(params, grads, lr):
    update = jax.jit(lambda ps, gs: jax.tree.map(lambda p, g: p - lr * g, ps, gs))
    return update(params, grads)
