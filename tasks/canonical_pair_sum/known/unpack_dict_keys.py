# expect: runtime_error via examples, property
# why: `a, b = pair` on a dict unpacks its keys, the strings "a" and "b", which jit cannot take.
import jax


@jax.jit
def _add(a, b):
    return a + b


def canonical_pair_sum(pair):
    a, b = pair
    return _add(a, b)
