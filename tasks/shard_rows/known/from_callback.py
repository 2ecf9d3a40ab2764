# expect: accepted
# why: jax.make_array_from_callback builds each device's block from its index alone: an Auto mesh, built by hand.
import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P


def shard_rows(x):
    mesh = Mesh(np.array(jax.devices()), ("data",), axis_types=(AxisType.Auto,))
    rows = -(-x.shape[0] // 8) * 8
    padded = np.concatenate([x, np.zeros((rows - x.shape[0], x.shape[1]), x.dtype)])
    return jax.make_array_from_callback(padded.shape, NamedSharding(mesh, P("data", None)),
                                        lambda index: padded[index])
