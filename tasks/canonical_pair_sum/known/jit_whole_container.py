# expect: inefficient via retrace
# why: jits a function of the container itself: a tuple, a list and a dict are three pytree structures per shape.
import jax


@jax.jit
def _pair_sum(pair):
    if isinstance(pair, dict):
        return pair["a"] + pair["b"]
    return pair[0] + pair[1]


def canonical_pair_sum(pair):
    return _pair_sum(pair)
