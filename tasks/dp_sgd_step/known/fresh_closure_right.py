# expect: accepted; examples passed, property passed, sharding passed, collectives passed
# why: right, with one all-reduce of the gradient, but the shard_map is built around a fresh closure on every call and runs eagerly, op by op: slow (a second or more a call). Where the run's budget runs short the property check grades on the inputs it could check and says how many; slow is not wrong.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def dp_sgd_step(w, x, y, lr):
    def local(w, x, y):
        return lax.psum(2.0 * x.T @ (x @ w - y), "data") / (x.shape[0] * 8)
    step = jax.shard_map(local, mesh=MESH, in_specs=(P(), P("data", None), P("data")),
                         out_specs=P())
    return w - lr * step(w, x, y)
