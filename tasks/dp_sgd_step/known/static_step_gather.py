# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: the step number passed as a static argument (for a warm-up already over), so every call compiles the step again, and the step unrolls its gradient row by row by hand: a heavy compile on every call. The batch is gathered first (all-gathers): the collectives check says so, whatever the clock.
import functools
import itertools

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
EVERYWHERE = NamedSharding(MESH, P())
_steps = itertools.count()


@functools.partial(jax.jit, static_argnums=4)
def _step(w, x, y, lr, step):
    x = jax.lax.with_sharding_constraint(x, EVERYWHERE)
    y = jax.lax.with_sharding_constraint(y, EVERYWHERE)
    g = jnp.zeros_like(w)
    for i in range(x.shape[0]):                 # one row at a time, unrolled
        g = g + 2.0 * x[i] * (x[i] @ w - y[i])
    warm_up = min(1.0, (step + 1) / 1)          # over after the first step
    return w - warm_up * lr * g / x.shape[0]


def dp_sgd_step(w, x, y, lr):
    return _step(w, x, y, lr, next(_steps))
