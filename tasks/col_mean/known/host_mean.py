# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: pulls x to the host for NumPy's mean and sends the means back: every row crosses to the host.
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))


def col_mean(x):
    rows = np.asarray(x)
    means = rows.sum(axis=0) / max(rows.shape[0], 1)
    return jax.device_put(means.astype(np.float32), NamedSharding(MESH, P()))
