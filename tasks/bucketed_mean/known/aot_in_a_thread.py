# expect: inefficient via retrace; examples passed, property passed
# dodge: ahead_of_time
# why: the 31 programs compiled ahead of time on a thread the file starts at import
# (joined before the file finishes loading): another thread's compiles are the file's
# compiles all the same.
import threading

import jax
import jax.numpy as jnp
import numpy as np

_LENGTHS = [33, 40, 47, 60, 70, 100, 111, 127, 130, 200, 231, 255] + list(range(1, 20))
_compiled = {}


def _prepare():
    for n in _LENGTHS:
        _compiled[n] = jax.jit(jnp.mean).lower(np.zeros(n, np.float32)).compile()


_worker = threading.Thread(target=_prepare)
_worker.start()
_worker.join()
_fallback = jax.jit(jnp.mean)


def bucketed_mean(x):
    n = x.shape[0]
    if n == 0:
        return 0.0
    program = _compiled.get(n)
    return program(x) if program is not None else _fallback(x)
