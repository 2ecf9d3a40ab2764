# expect: runtime_error via property; examples passed, sharding failed, collectives failed
# why: sums the blocks with jnp: at s = 0 the reshape of an empty split array needs out_sharding (Explicit axes), and otherwise the sums land on every device whole, not split like x.
import jax
import jax.numpy as jnp


@jax.jit
def ring_allreduce(x):
    return jnp.tile(x.reshape(8, -1).sum(axis=0), 8)
