# expect: wrong_answer via sharding; examples passed, property passed
# why: P() copies the whole padded array to every device: the values are right, the rows are not split.
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def shard_rows(x):
    mesh = jax.make_mesh((8,), ("data",))
    padded = np.zeros((-(-x.shape[0] // 8) * 8, x.shape[1]), np.float32)
    padded[: x.shape[0]] = x
    return jax.device_put(padded, NamedSharding(mesh, P()))
