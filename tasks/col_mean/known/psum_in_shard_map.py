# expect: accepted
# why: writes the collective by hand: each device sums its rows, one psum adds the eight partial sums.
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))


@jax.jit
def col_mean(x):
    n = max(x.shape[0], 1)
    total = jax.shard_map(lambda rows: lax.psum(jnp.sum(rows, axis=0), "data"),
                          mesh=MESH, in_specs=P("data", None), out_specs=P())(x)
    return total / n
