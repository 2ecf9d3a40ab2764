# expect: wrong_answer via examples
# why: a shard_map built around a fresh closure on every call (slow: the eager shard_map runs op by op, about a second or more a call, so the run's budget runs short), and wrong on the statement's first example: the sum is divided by this device's rows, not the whole batch, 8 times too large. A wrong value seen once is the verdict, not the clock.
import jax
from jax import lax
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def dp_sgd_step(w, x, y, lr):
    def local(w, x, y):
        return lax.psum(2.0 * x.T @ (x @ w - y), "data") / x.shape[0]
    step = jax.shard_map(local, mesh=MESH, in_specs=(P(), P("data", None), P("data")),
                         out_specs=P())
    return w - lr * step(w, x, y)
