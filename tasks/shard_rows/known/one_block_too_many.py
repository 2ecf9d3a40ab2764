# expect: wrong_answer via property
# why: (n // 8 + 1) * 8 rows: a multiple of 8 (0 included) gets a whole block of zeros too many.
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def shard_rows(x):
    mesh = jax.make_mesh((8,), ("data",))
    padded = np.zeros(((x.shape[0] // 8 + 1) * 8, x.shape[1]), np.float32)
    padded[: x.shape[0]] = x
    return jax.device_put(padded, NamedSharding(mesh, P("data", None)))
