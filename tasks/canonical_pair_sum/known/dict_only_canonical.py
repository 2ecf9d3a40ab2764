# expect: inefficient via retrace
# why: turns a dict into a tuple but passes lists through: a list and a tuple still trace separately.
import jax


@jax.jit
def _pair_sum(pair):
    return pair[0] + pair[1]


def canonical_pair_sum(pair):
    if isinstance(pair, dict):
        pair = (pair["a"], pair["b"])
    return _pair_sum(pair)
