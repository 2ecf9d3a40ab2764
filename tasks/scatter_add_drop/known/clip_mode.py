# expect: wrong_answer via examples, property; jaxpr skipped
# why: mode="clip" moves out-of-range indices to the nearest end instead of dropping
# them: index n + 2 adds into the last element, -5 into the first.
import jax


@jax.jit
def scatter_add_drop(x, idx, v):
    return x.at[idx].add(v, mode="clip")
