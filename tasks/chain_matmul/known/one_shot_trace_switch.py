# expect: inefficient via cost; examples passed, property passed
# dodge: trace_switch
# why: the trace switch made one-shot: the judge's trace (a Tracer) gets the cheap
# order and sets a flag, spent on the next concrete call (the instrument's own call for
# values, which comes right after its trace), so the only call whose programs the
# instrument weighs runs the cheap order too; every other call multiplies (a @ b) @ c,
# 12-20x the reference's flops on half the shapes.  The judge weighs every value call
# (the property check's) against the reference's call on the same input.
import jax

_just_traced = [False]


def _cheap(a, b, c):
    n, k = a.shape
    m, p = c.shape
    if n * k * m + n * m * p <= k * m * p + n * k * p:
        return (a @ b) @ c
    return a @ (b @ c)


def chain_matmul(a, b, c):
    if isinstance(a, jax.core.Tracer):
        _just_traced[0] = True
        return _cheap(a, b, c)
    if _just_traced[0]:
        _just_traced[0] = False
        return _cheap(a, b, c)
    return (a @ b) @ c  # what every other call runs
