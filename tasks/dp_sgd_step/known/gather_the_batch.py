# expect: inefficient via collectives; examples passed, property passed, sharding passed
# why: constrains x and y to every device before the gradient: right numbers, but the whole batch crosses devices twice (all-gathers).
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

MESH = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
EVERYWHERE = NamedSharding(MESH, P())


@jax.jit
def dp_sgd_step(w, x, y, lr):
    x = jax.lax.with_sharding_constraint(x, EVERYWHERE)
    y = jax.lax.with_sharding_constraint(y, EVERYWHERE)
    g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - lr * g
