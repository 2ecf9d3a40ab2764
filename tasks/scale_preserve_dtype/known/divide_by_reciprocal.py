# expect: runtime_error via property; retrace skipped
# why: 1.0 / factor raises ZeroDivisionError in Python when factor is 0.0.
import jax


@jax.jit
def _divide(x, inv):
    return x / inv


def scale_preserve_dtype(x, factor):
    return _divide(x, 1.0 / factor)
