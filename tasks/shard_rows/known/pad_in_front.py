# expect: wrong_answer via examples, property
# why: the zero rows go before the data instead of after it.
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def shard_rows(x):
    mesh = jax.make_mesh((8,), ("data",))
    padded = np.pad(x, ((-x.shape[0] % 8, 0), (0, 0)))
    return jax.device_put(padded, NamedSharding(mesh, P("data", None)))
