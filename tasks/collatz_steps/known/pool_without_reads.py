# expect: accepted; retrace passed, sync passed
# why: the device while_loop of the reference, with a thread pool that does host work
# that reads no device value (it formats the call's count for a log): a thread is not
# a sync, a pull is.
import concurrent.futures

import jax
import jax.numpy as jnp
from jax import lax

_pool = concurrent.futures.ThreadPoolExecutor(1)
_log = []


def _step(state):
    values, steps = state
    active = values != 1
    following = jnp.where(values % 2 == 0, values // 2, 3 * values + 1)
    return jnp.where(active, following, values), steps + active.astype(jnp.int32)


@jax.jit
def _collatz(n):
    return lax.while_loop(lambda s: jnp.any(s[0] != 1), _step, (n, jnp.zeros_like(n)))[1]


def collatz_steps(n):
    _log.append(_pool.submit(str.format, "call {}", len(_log)).result())
    return _collatz(n)
