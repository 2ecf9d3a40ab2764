# expect: inefficient via sync
# why: reads n on the host through ArrayImpl's C++ method _single_device_array_to_np_array_did_copy (what the wrapped _value property calls), NumPy loop: no counted pull, found by review-perf; counted since: every door to the host copy is wrapped
# dodge: host_compute
import numpy as np
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
    host, _ = n._single_device_array_to_np_array_did_copy()
    return jnp.asarray(_host(np.array(host, copy=True))) + 0
