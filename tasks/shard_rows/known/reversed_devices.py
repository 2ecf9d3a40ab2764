# expect: wrong_answer via sharding; examples passed, property passed
# why: a mesh of the devices in reverse order: rows 0-7 land on device 7, not on device 0.
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def shard_rows(x):
    mesh = Mesh(np.array(jax.devices()[::-1]), ("data",))
    padded = np.pad(x, ((0, -x.shape[0] % 8), (0, 0)))
    return jax.device_put(padded, NamedSharding(mesh, P("data", None)))
