# expect: accepted; donation passed
# why: donates params and grads: the grads' buffers cannot all be used (JAX warns), which costs nothing; every params leaf is reused.
import jax


def _step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


sgd_update = jax.jit(_step, donate_argnums=(0, 1))
