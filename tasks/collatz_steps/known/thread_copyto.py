# expect: inefficient via sync; examples passed, property passed, retrace passed
# dodge: thread_sync
# why: copies the "still running" flag to a host buffer with np.copyto on a thread of
# its own every step: a threading.Thread whose target is NumPy's, so the thread's stack
# holds no line of this file; the host still waits for the device on every iteration.
import threading

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _step(v, steps):
    active = v != 1
    following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
    return jnp.where(active, following, v), steps + active


def collatz_steps(n):
    v, steps = n, jnp.zeros_like(n)
    flag = np.ones((), bool)
    while True:
        reader = threading.Thread(target=np.copyto, args=(flag, jnp.any(v != 1)))
        reader.start()
        reader.join()
        if not flag:
            return steps
        v, steps = _step(v, steps)
