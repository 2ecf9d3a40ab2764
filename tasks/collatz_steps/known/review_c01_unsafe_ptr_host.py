# expect: inefficient via sync
# why: reads n's memory through the public jax.Array.unsafe_buffer_pointer() and ctypes.string_at, runs the Collatz loop in NumPy on the host: a host pull the sync counter never sees (0 syncs), found by review-perf; counted since: every door to the host copy is wrapped
# dodge: host_compute
import ctypes
import numpy as np
import jax
import jax.numpy as jnp


def _host(a):
    v = a.astype(np.int64)
    steps = np.zeros_like(v)
    while (v != 1).any():
        act = v != 1
        v = np.where(act, np.where(v % 2 == 0, v // 2, 3 * v + 1), v)
        steps += act
    return steps.astype(np.int32)


def collatz_steps(n):
    n.block_until_ready
    if n.shape[0] == 0:
        return jnp.zeros((0,), jnp.int32)
    raw = ctypes.string_at(n.unsafe_buffer_pointer(), n.size * 4)
    host = np.frombuffer(raw, np.int32)
    return jnp.asarray(_host(host)) + 0
