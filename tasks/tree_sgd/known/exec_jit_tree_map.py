# expect: inefficient via retrace
# why: builds the update with exec on every call and maps it over the leaves with
# jax.tree.map: the jit is called from jax's tree_util, never from this file, and its
# lambda lives in code run by exec; it is still this file's jit, traced on every call.
import jax


def tree_sgd(params, grads, lr):
    namespace = {"jax": jax, "lr": lr}
    exec("step = jax.jit(lambda p, g: p - lr * g)", namespace)
    return jax.tree.map(namespace["step"], params, grads)
