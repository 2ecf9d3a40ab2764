# expect: wrong_answer via examples, property; jaxpr skipped
# why: the plain indexed update: out-of-range indices are dropped, but JAX wraps
# negative ones first (-1 updates the last element), which the task says to ignore.
import jax


@jax.jit
def scatter_add_drop(x, idx, v):
    return x.at[idx].add(v)
