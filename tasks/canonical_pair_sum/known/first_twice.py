# expect: wrong_answer via examples, property
# why: a typo adds the first array to itself; right only when a equals b.
import jax


@jax.jit
def _add(a, b):
    return a + b


def canonical_pair_sum(pair):
    if isinstance(pair, dict):
        a, b = pair["a"], pair["a"]
    else:
        a, b = pair[0], pair[0]
    return _add(a, b)
