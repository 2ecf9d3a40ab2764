# expect: inefficient via donation; examples passed, property passed
# why: donates the wrong argument: XLA writes the update into the gradients' buffers, and the old parameters stay alive.
import jax


def _step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


sgd_update = jax.jit(_step, donate_argnames="grads")
