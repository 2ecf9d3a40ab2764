# expect: accepted
# why: the ring run the other way (device i sends to i - 1), its mesh taken from x's type inside jit.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P


def ring_allreduce(x):
    mesh = jax.typeof(x).sharding.mesh
    back = [(i, (i - 1) % 8) for i in range(8)]

    def ring(block):
        total, passing = block, block
        for _ in range(7):
            passing = lax.ppermute(passing, "data", back)
            total = total + passing
        return total
    return jax.jit(jax.shard_map(ring, mesh=mesh, in_specs=P("data"), out_specs=P("data")))(x)
