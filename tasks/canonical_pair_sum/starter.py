import jax


@jax.jit
def _add(a, b):
    return a + b


def canonical_pair_sum(pair):
    # pair: a tuple (a, b), a list [a, b], or a dict {"a": a, "b": b} in either key
    # order; a and b are float32 JAX arrays of one shape (possibly empty).
    # Take a and b out of whatever container arrived, then call _add(a, b).
    raise NotImplementedError("unpack the pair, then call _add(a, b)")
