# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: lax.psum gives the right sums in one all-reduce, but the task asks for the ring written with ppermute.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))


@jax.jit
def ring_allreduce(x):
    return jax.shard_map(lambda b: lax.psum(b, "data"), mesh=MESH, in_specs=P("data"),
                         out_specs=P("data"))(x)
