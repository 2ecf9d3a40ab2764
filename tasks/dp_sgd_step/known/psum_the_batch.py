# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: a gather in disguise: each device zero-pads its rows to the whole batch and one psum assembles it; one all-reduce, like the reference's, but of the batch, not of the gradient.
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def _gathered(xy):
    rows = xy.shape[0]
    me = lax.axis_index("data")
    full = jnp.zeros((rows * 8, xy.shape[1]), xy.dtype)
    return lax.psum(lax.dynamic_update_slice(full, xy, (me * rows, 0)), "data")


@jax.jit
def dp_sgd_step(w, x, y, lr):
    xy = jnp.concatenate([x, y[:, None]], axis=1)
    full = jax.shard_map(_gathered, mesh=MESH, in_specs=P("data", None), out_specs=P())(xy)
    xs, ys = full[:, :-1], full[:, -1]
    g = 2.0 * xs.T @ (xs @ w - ys) / xs.shape[0]
    return w - lr * g
