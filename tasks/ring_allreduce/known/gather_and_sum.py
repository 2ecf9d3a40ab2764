# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: all_gather brings all eight blocks to every device at once, then sums them: right, but no ring.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))


@jax.jit
def ring_allreduce(x):
    return jax.shard_map(lambda b: lax.all_gather(b, "data").sum(axis=0), mesh=MESH,
                         in_specs=P("data"), out_specs=P("data"))(x)
