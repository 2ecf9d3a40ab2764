# expect: inefficient via sync; examples passed, property passed, retrace passed
# dodge: thread_sync
# why: the host loop of host_while.py, compiled under another file's name (exec with
# "/usr/lib/python3.11/functools.py"): no frame of this file is on the stack when bool()
# pulls the condition, and it is still the learner's call waiting for the device.
import jax
import jax.numpy as jnp

_SOURCE = '''
def collatz_steps(n):
    v, steps = n, jnp.zeros_like(n)
    while bool(jnp.any(v != 1)):
        v, steps = _step(v, steps)
    return steps
'''


@jax.jit
def _step(v, steps):
    active = v != 1
    following = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
    return jnp.where(active, following, v), steps + active


_space = {"jnp": jnp, "_step": _step}
exec(compile(_SOURCE, "/usr/lib/python3.11/functools.py", "exec"), _space)
collatz_steps = _space["collatz_steps"]
