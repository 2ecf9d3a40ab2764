# expect: accepted; retrace passed, sync passed
# why: the reference's device while_loop, run on a thread of the learner's own (threads
# are allowed: only new processes are refused), and jax's own threads doing the rest.
import threading

import jax
import jax.numpy as jnp
from jax import lax


def _step(state):
    values, steps = state
    active = values != 1
    following = jnp.where(values % 2 == 0, values // 2, 3 * values + 1)
    return jnp.where(active, following, values), steps + active.astype(jnp.int32)


@jax.jit
def _collatz(n):
    return lax.while_loop(lambda s: jnp.any(s[0] != 1), _step, (n, jnp.zeros_like(n)))[1]


def collatz_steps(n):
    box = []
    worker = threading.Thread(target=lambda: box.append(_collatz(n)))
    worker.start()
    worker.join()
    return box[0]
