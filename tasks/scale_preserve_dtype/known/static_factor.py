# expect: inefficient via retrace
# why: factor as a static argument: right values, but every new factor value is a new compile.
from functools import partial

import jax


@partial(jax.jit, static_argnums=1)
def _scale(x, factor):
    return x * factor


def scale_preserve_dtype(x, factor):
    return _scale(x, factor)
