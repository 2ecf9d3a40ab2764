# expect: accepted; retrace passed
# why: no jit at all: eager jax.tree.map is right, and has no jitted code for the
# retrace check to count (slower per call, but not what this task measures).
import jax


def tree_sgd(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
