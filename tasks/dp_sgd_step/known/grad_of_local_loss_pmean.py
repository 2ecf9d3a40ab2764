# expect: wrong_answer via examples, property
# why: jax.grad inside shard_map of a replicated w already sums over the devices; the pmean on top makes the step 8 times too large.
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def _step(w, x, y, lr):
    g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - lr * lax.pmean(g, "data")


@jax.jit
def dp_sgd_step(w, x, y, lr):
    return jax.shard_map(_step, mesh=MESH, in_specs=(P(), P("data", None), P("data"), P()),
                         out_specs=P())(w, x, y, lr)
