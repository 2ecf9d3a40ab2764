# expect: inefficient via program; examples passed, property passed
# dodge: trace_switch
# why: the trace switch made one-shot: lax.scan for the judge's trace and for the next
# concrete call (the jaxpr instrument's own call for values), a Python loop of eager
# operations over t on every other call (T copies of the step).  The judge weighs every
# value call's equations (the property check's) against the check's budget.
import jax
import jax.numpy as jnp
from jax import lax

_just_traced = [False]


def _scan(x, alpha):
    if x.shape[0] == 0:
        return x

    def step(acc, xt):
        acc = alpha * xt + (1 - alpha) * acc
        return acc, acc

    _, ys = lax.scan(step, x[0], x[1:])
    return jnp.concatenate([x[:1], ys])


def ema_scan(x, alpha):
    if isinstance(x, jax.core.Tracer):
        _just_traced[0] = True
        return _scan(x, alpha)
    if _just_traced[0]:
        _just_traced[0] = False
        return _scan(x, alpha)
    if x.shape[0] == 0:
        return x
    acc, out = x[0], [x[0]]
    for t in range(1, x.shape[0]):  # what every other call runs
        acc = alpha * x[t] + (1 - alpha) * acc
        out.append(acc)
    return jnp.stack(out)
