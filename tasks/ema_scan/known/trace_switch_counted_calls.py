# expect: inefficient via program; examples passed, property passed
# dodge: trace_switch
# why: the switch keyed on a global count of calls since the last trace: the trace and
# the three concrete calls after it get lax.scan; from the fourth on, every call runs
# one jitted program of the loop unrolled over t (T copies of the step in one program,
# not eager operations).  The judge weighs the equations of the programs every value
# call ran, so a switch that flips on the Nth call is seen on the calls after it.
import jax
import jax.numpy as jnp
from jax import lax

_since_trace = [0]


def _scan(x, alpha):
    if x.shape[0] == 0:
        return x

    def step(acc, xt):
        acc = alpha * xt + (1 - alpha) * acc
        return acc, acc

    _, ys = lax.scan(step, x[0], x[1:])
    return jnp.concatenate([x[:1], ys])


@jax.jit
def _unrolled(x, alpha):
    if x.shape[0] == 0:
        return x
    acc, out = x[0], [x[0]]
    for t in range(1, x.shape[0]):
        acc = alpha * x[t] + (1 - alpha) * acc
        out.append(acc)
    return jnp.stack(out)


def ema_scan(x, alpha):
    if isinstance(x, jax.core.Tracer):
        _since_trace[0] = 0
        return _scan(x, alpha)
    _since_trace[0] += 1
    if _since_trace[0] <= 3:
        return _scan(x, alpha)
    return _unrolled(x, alpha)
