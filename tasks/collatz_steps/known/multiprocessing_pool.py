# expect: runtime_error via examples
# dodge: host_compute
# why: the loop in NumPy in a multiprocessing Process (the fork context), the answer back
# over a pipe: the child's pulls and loop are counted nowhere; the worker refuses to
# start the process, and says so.
import multiprocessing
import os
import pickle

import numpy as np
import jax.numpy as jnp


def _child(values, w):
    v = values.astype(np.int64)
    s = np.zeros_like(v)
    while (v != 1).any():
        a = v != 1
        v = np.where(a, np.where(v % 2 == 0, v // 2, 3 * v + 1), v)
        s += a
    os.write(w, pickle.dumps(s.astype(np.int32)))


def collatz_steps(n):
    r, w = os.pipe()
    child = multiprocessing.get_context("fork").Process(target=_child, args=(np.asarray(n), w))
    child.start()
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    child.join()
    return jnp.asarray(pickle.loads(data))
