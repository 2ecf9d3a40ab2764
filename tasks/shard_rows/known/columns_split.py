# expect: runtime_error via examples
# why: P(None, "data") splits the columns, and 2 columns cannot be split over 8 devices.
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def shard_rows(x):
    mesh = jax.make_mesh((8,), ("data",))
    padded = np.pad(x, ((0, -x.shape[0] % 8), (0, 0)))
    return jax.device_put(padded, NamedSharding(mesh, P(None, "data")))
