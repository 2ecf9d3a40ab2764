# expect: inefficient via donation; examples passed, property passed
# why: computes into new buffers, then deletes the inputs by hand: the memory is freed only after both copies existed at once.
import jax


@jax.jit
def _step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def sgd_update(params, grads, lr):
    new = _step(params, grads, lr)
    jax.block_until_ready(new)
    for leaf in jax.tree.leaves(params):
        leaf.delete()
    return new
