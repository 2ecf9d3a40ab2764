import jax


@jax.jit
def _add(a, b):
    return a + b


def canonical_pair_sum(pair):
    # Pytree structure is part of the cache key: a tuple and a list of the same arrays
    # are two programs.  Unpack whatever container arrives into two plain arrays first.
    if isinstance(pair, dict):
        a, b = pair["a"], pair["b"]
    else:
        a, b = pair
    return _add(a, b)
