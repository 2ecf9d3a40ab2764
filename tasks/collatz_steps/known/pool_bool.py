# expect: inefficient via sync; examples passed, property passed, retrace passed
# dodge: thread_sync
# why: the loop condition is still read on the host every step, only through a thread
# pool (`pool.submit(bool, x).result()`): the pull runs on a pool thread where no line
# of this file is on the stack, and waits for the device just the same.
import concurrent.futures

import jax
import jax.numpy as jnp

_pool = concurrent.futures.ThreadPoolExecutor(1)


@jax.jit
def _step(v, steps):
    active = v != 1
    following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
    return jnp.where(active, following, v), steps + active


def collatz_steps(n):
    v, steps = n, jnp.zeros_like(n)
    while _pool.submit(bool, jnp.any(v != 1)).result():
        v, steps = _step(v, steps)
    return steps
