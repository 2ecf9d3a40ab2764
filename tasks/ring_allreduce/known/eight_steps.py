# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: goes all the way round (eight steps) and subtracts its own block again: right sums, one collective-permute more than the ring needs.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))
NEXT = [(i, (i + 1) % 8) for i in range(8)]


def _ring(block):
    total, passing = block, block
    for _ in range(8):
        passing = lax.ppermute(passing, "data", NEXT)
        total = total + passing
    return total - block


@jax.jit
def ring_allreduce(x):
    return jax.shard_map(_ring, mesh=MESH, in_specs=P("data"), out_specs=P("data"))(x)
