# expect: accepted
# why: the ring as a fori_loop of seven steps: one collective-permute in the loop body, counted once per trip (seven).
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))
NEXT = [(i, (i + 1) % 8) for i in range(8)]


def _ring(block):
    def step(_, carry):
        total, passing = carry
        passing = lax.ppermute(passing, "data", NEXT)
        return total + passing, passing
    return lax.fori_loop(0, 7, step, (block, block))[0]


@jax.jit
def ring_allreduce(x):
    return jax.shard_map(_ring, mesh=MESH, in_specs=P("data"), out_specs=P("data"))(x)
