# expect: accepted; retrace passed
# why: the canonical container may be a dict: every pair becomes {"a": ..., "b": ...} before the jitted core.
import jax


@jax.jit
def _pair_sum(pair):
    return pair["a"] + pair["b"]


def canonical_pair_sum(pair):
    if not isinstance(pair, dict):
        pair = {"a": pair[0], "b": pair[1]}
    return _pair_sum(pair)
