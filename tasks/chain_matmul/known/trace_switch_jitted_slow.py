# expect: inefficient via cost; examples passed, property passed
# dodge: trace_switch
# why: tells a trace from a call by the array's type (a concrete jax.Array, not a
# Tracer) and, when called, runs a separate jitted program of the expensive order
# (a @ b) @ c: the trace the judge compiles is the cheap one, the calls run 20 times its
# flops; the worker records the program the calls run.
import jax
import jax.numpy as jnp

_expensive = jax.jit(lambda a, b, c: (a @ b) @ c)


def _cheap(a, b, c):
    n, k = a.shape
    m, p = c.shape
    return (a @ b) @ c if n * k * m + n * m * p <= k * m * p + n * k * p else a @ (b @ c)


def chain_matmul(a, b, c):
    if type(a).__name__ == "ArrayImpl":      # concrete: a real call
        return _expensive(a, b, c)
    return _cheap(a, b, c)
