# expect: wrong_answer via examples, property; jaxpr skipped
# why: "keeps every index in range" with idx % n: -1 becomes n - 1 and n + 2 becomes 2,
# so indices the task says to ignore are added somewhere.
import jax


@jax.jit
def scatter_add_drop(x, idx, v):
    n = x.shape[0]
    if n == 0:
        return x
    return x.at[idx % n].add(v)
