import jax


# A Python float reaches jit as a *weakly* typed scalar: it takes x's dtype instead of
# promoting x, and as a traced argument a new value is only new data, never a new trace.
@jax.jit
def _scale(x, factor):
    return x * factor


def scale_preserve_dtype(x, factor):
    return _scale(x, factor)
