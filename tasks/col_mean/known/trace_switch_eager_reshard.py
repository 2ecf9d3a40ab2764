# expect: inefficient via collectives; examples passed, property passed
# dodge: trace_switch
# why: the plain sum when traced; when called (a concrete jax.Array, trace_state_clean()),
# an eager jax.reshard of x to P() (an all-gather of the whole batch) and a sum on every
# device: the compiled trace makes one all-reduce, the calls run an all-gather.
import jax
import jax.numpy as jnp
from jax._src import core
from jax.sharding import NamedSharding, PartitionSpec as P


def col_mean(x):
    if core.trace_state_clean():
        whole = jax.reshard(x, NamedSharding(x.sharding.mesh, P()))
        return jnp.sum(whole, axis=0) / max(whole.shape[0], 1)
    return jnp.sum(x, axis=0) / max(x.shape[0], 1)
