# expect: accepted
# why: half the latency: three steps both ways round the ring, then one more to reach the device opposite; seven collective-permutes in all.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))
RIGHT = [(i, (i + 1) % 8) for i in range(8)]
LEFT = [(i, (i - 1) % 8) for i in range(8)]


def _ring(block):
    total, right, left = block, block, block
    for _ in range(3):
        right = lax.ppermute(right, "data", RIGHT)
        left = lax.ppermute(left, "data", LEFT)
        total = total + right + left
    return total + lax.ppermute(right, "data", RIGHT)


@jax.jit
def ring_allreduce(x):
    return jax.shard_map(_ring, mesh=MESH, in_specs=P("data"), out_specs=P("data"))(x)
