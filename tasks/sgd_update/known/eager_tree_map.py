# expect: inefficient via donation; examples passed, property passed, retrace passed
# why: no jit: every leaf's update is a new eager array, and only jit can donate a buffer.
import jax


def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
