# expect: accepted; retrace passed
# why: jax.tree.leaves flattens a tuple, a list or a dict (keys sorted) into the same two arrays.
import jax


@jax.jit
def _sum_all(*arrays):
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total


def canonical_pair_sum(pair):
    return _sum_all(*jax.tree.leaves(pair))
