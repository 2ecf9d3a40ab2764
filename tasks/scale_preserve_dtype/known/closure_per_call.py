# expect: inefficient via retrace
# why: bakes factor into a fresh lambda on every call: a new function object, so jit never reuses a compile.
import jax


def scale_preserve_dtype(x, factor):
    return jax.jit(lambda v: v * factor)(x)
