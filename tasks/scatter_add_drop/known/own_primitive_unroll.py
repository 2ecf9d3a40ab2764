# expect: inefficient via jaxpr; examples passed, property passed
# why: right values, one update at a time (a Python loop over the k indices, unrolled),
# hidden behind a primitive of the file's own (jax.extend.core.Primitive) whose lowering
# is the loop (mlir.register_lowering with mlir.lower_fun): the jaxpr shows one `unrolled`
# equation, the compiled program the whole loop.  A lowering the learner's code
# registered makes the figure unknown, and the jaxpr check fails closed.
import jax
import jax.numpy as jnp
from jax.extend.core import Primitive
from jax.interpreters import mlir


def _looped(x, idx, v):
    n = x.shape[0]
    if n == 0:
        return x
    for j in range(idx.shape[0]):  # unrolled: one update per index
        i = idx[j]
        ok = (i >= 0) & (i < n)
        x = x.at[jnp.where(ok, i, n)].add(v[j], mode="drop")
    return x


unrolled_p = Primitive("unrolled")
unrolled_p.def_abstract_eval(lambda x, idx, v: jax.core.ShapedArray(x.shape, x.dtype))
unrolled_p.def_impl(_looped)
mlir.register_lowering(unrolled_p, mlir.lower_fun(_looped, multiple_results=False))


@jax.jit
def scatter_add_drop(x, idx, v):
    return unrolled_p.bind(x, idx, v)
