# expect: runtime_error via examples
# dodge: host_compute
# why: fork(2) called through ctypes (no Python door, no audit event), the child does the
# loop in NumPy and writes back over a pipe: the kernel refuses the child (seccomp on
# clone without CLONE_THREAD), so the call fails instead of being missed.
import ctypes
import os
import pickle

import numpy as np
import jax.numpy as jnp

_libc = ctypes.CDLL(None, use_errno=True)


def _host(v):
    v = v.astype(np.int64)
    s = np.zeros_like(v)
    while (v != 1).any():
        a = v != 1
        v = np.where(a, np.where(v % 2 == 0, v // 2, 3 * v + 1), v)
        s += a
    return s.astype(np.int32)


def collatz_steps(n):
    r, w = os.pipe()
    pid = _libc.fork()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "fork: " + os.strerror(ctypes.get_errno()))
    if pid == 0:
        os.write(w, pickle.dumps(_host(np.asarray(n))))
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.waitpid(pid, 0)
    return jnp.asarray(pickle.loads(data))
