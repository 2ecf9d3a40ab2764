# expect: inefficient via cost; examples passed, property passed
# dodge: trace_switch
# why: the switch keyed on the shapes the function was traced at, not on the call
# right after a trace: a call at a shape it was once traced at (every scripted call the
# cost instrument measures) runs the cheap order; a call at any other shape (the
# property check's) runs (a @ b) @ c, up to 20x the reference's flops.  Weighing only
# the instrument's calls cannot see it; weighing every value call does.
import jax

_traced_at: set = set()


def _cheap(a, b, c):
    n, k = a.shape
    m, p = c.shape
    if n * k * m + n * m * p <= k * m * p + n * k * p:
        return (a @ b) @ c
    return a @ (b @ c)


def chain_matmul(a, b, c):
    shapes = (a.shape, b.shape, c.shape)
    if isinstance(a, jax.core.Tracer):
        _traced_at.add(shapes)
        return _cheap(a, b, c)
    if shapes in _traced_at:
        return _cheap(a, b, c)
    return (a @ b) @ c
