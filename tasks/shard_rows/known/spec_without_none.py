# expect: accepted
# why: P("data") instead of P("data", None), and np.pad instead of a zeros buffer: the same rows land on the same devices.
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def shard_rows(x):
    mesh = jax.make_mesh((8,), ("data",))
    extra = -x.shape[0] % 8
    return jax.device_put(np.pad(x, ((0, extra), (0, 0))), NamedSharding(mesh, P("data")))
