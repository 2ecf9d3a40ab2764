# expect: inefficient via collectives; examples passed, property passed, sharding passed
# dodge: host_callback
# why: each device hands its block of rows to a NumPy loop on the host through
# jax.pure_callback inside shard_map, then one psum: the same one all-reduce as the
# reference and a replicated result, but the sums were done off the device.
import jax
import numpy as np
from jax.sharding import PartitionSpec as P


def _host_sum(block):
    block = np.asarray(block)
    out = np.zeros(block.shape[1], np.float32)
    for row in block:
        out += row
    return out


@jax.jit
def col_mean(x):
    mesh = jax.typeof(x).sharding.mesh

    def local(block):
        partial = jax.pure_callback(
            _host_sum, jax.ShapeDtypeStruct((block.shape[1],), block.dtype), block)
        return jax.lax.psum(partial, "data")

    total = jax.shard_map(local, mesh=mesh, in_specs=P("data", None), out_specs=P())(x)
    return total / max(x.shape[0], 1)
