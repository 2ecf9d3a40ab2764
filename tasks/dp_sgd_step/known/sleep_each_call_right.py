# expect: accepted; examples passed, property passed, sharding passed, collectives passed
# why: right, one all-reduce, but every call waits 2.5 s on the host (charged in full, as any time the code spends): the run's budget runs short and the property check grades on the inputs it could check, saying how many. Slow is not wrong.
import time

import jax
import jax.numpy as jnp


@jax.jit
def _step(w, x, y, lr):
    return w - lr * jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)


def dp_sgd_step(w, x, y, lr):
    time.sleep(2.5)
    return _step(w, x, y, lr)
