# expect: wrong_answer via examples, property
# why: passes the running total instead of the block it received: device blocks get counted many times over.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))
NEXT = [(i, (i + 1) % 8) for i in range(8)]


def _ring(block):
    total = block
    for _ in range(7):
        total = total + lax.ppermute(total, "data", NEXT)
    return total


@jax.jit
def ring_allreduce(x):
    return jax.shard_map(_ring, mesh=MESH, in_specs=P("data"), out_specs=P("data"))(x)
