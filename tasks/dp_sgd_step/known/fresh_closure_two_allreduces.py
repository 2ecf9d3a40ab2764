# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: right weights from a shard_map built around a fresh closure on every call (slow: the eager shard_map runs op by op, and where the run's budget runs short the property check grades on what it drew), with two psums where one is enough: x^T x w and x^T y summed across the devices apart, which XLA combines into one all-reduce of twice the reference's bytes. The verdict comes from the collectives check, not the clock.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def dp_sgd_step(w, x, y, lr):
    def local(w, x, y):
        xtxw = lax.psum(x.T @ (x @ w), "data")
        xty = lax.psum(x.T @ y, "data")
        return 2.0 * (xtxw - xty) / (x.shape[0] * 8)
    step = jax.shard_map(local, mesh=MESH, in_specs=(P(), P("data", None), P("data")),
                         out_specs=P())
    return w - lr * step(w, x, y)
