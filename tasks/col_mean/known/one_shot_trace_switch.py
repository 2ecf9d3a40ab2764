# expect: inefficient via collectives; examples passed, property passed
# dodge: trace_switch
# why: the trace switch made one-shot: the plain sum for the judge's trace and for the
# next concrete call (the instrument's own call for values); every other call
# all-gathers the batch onto every device (reshard to replicated) before it sums.  The
# judge weighs what every value call (the property check's) sends between devices.
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

_just_traced = [False]


def col_mean(x):
    if isinstance(x, jax.core.Tracer):
        _just_traced[0] = True
        return jnp.sum(x, axis=0) / max(x.shape[0], 1)
    if _just_traced[0]:
        _just_traced[0] = False
        return jnp.sum(x, axis=0) / max(x.shape[0], 1)
    full = jax.sharding.reshard(x, jax.sharding.NamedSharding(x.sharding.mesh, P(None, None)))  # every device gets every row
    return jnp.sum(full, axis=0) / max(x.shape[0], 1)
