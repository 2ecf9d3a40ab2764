# expect: inefficient via collectives; examples passed, property passed, sharding passed
# dodge: host_compute
# why: the reference's program when traced (all the collectives instrument compiles); every real call pulls x to the host with the sync counter's per-thread pause raised for the moment, averages there with NumPy, and puts the means back on all eight devices, replicated, so the sharding check sees the layout it wants and the collectives figure of the calls is zero: no program read x, which the off-device rule sees (found by the stop-30 review of the known gaps)
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

_syncs = next(
    m for n, m in list(sys.modules.items()) if n.endswith(".syncs") and hasattr(m, "_thread")
)


def col_mean(x):
    if isinstance(x, jax.core.Tracer):
        return jnp.sum(x, axis=0) / max(x.shape[0], 1)
    _syncs._thread.paused += 1
    try:
        host = np.asarray(x)
    finally:
        _syncs._thread.paused -= 1
    means = (host.sum(axis=0) / max(host.shape[0], 1)).astype(np.float32)
    return jax.device_put(means, NamedSharding(x.sharding.mesh, PartitionSpec()))
