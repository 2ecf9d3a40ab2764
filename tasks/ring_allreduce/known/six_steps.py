# expect: wrong_answer via examples, property
# why: stops one step early: every device misses the block of the device right after it.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))
NEXT = [(i, (i + 1) % 8) for i in range(8)]


def _ring(block):
    total, passing = block, block
    for _ in range(6):
        passing = lax.ppermute(passing, "data", NEXT)
        total = total + passing
    return total


@jax.jit
def ring_allreduce(x):
    return jax.shard_map(_ring, mesh=MESH, in_specs=P("data"), out_specs=P("data"))(x)
