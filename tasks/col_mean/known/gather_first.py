# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: reshards x to every device before reducing: right means, but the whole batch crosses devices (an all-gather).
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",))


@jax.jit
def col_mean(x):
    everywhere = jax.reshard(x, NamedSharding(MESH, P()))
    return jnp.sum(everywhere, axis=0) / max(x.shape[0], 1)
