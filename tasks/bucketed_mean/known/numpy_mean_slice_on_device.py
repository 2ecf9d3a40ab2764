# expect: inefficient via retrace; examples passed, property passed
# dodge: host_compute
# why: the mean in NumPy on the host, then a jitted program over the first element only
# (x[:1] on the device, times zero, plus the host's mean): a program runs and compiles
# once per call shape, but none reads the input x, so the answer did not come from it.
import numpy as np
import jax
import jax.numpy as jnp

_finish = jax.jit(lambda head, m: head[0] * 0 + m)


def bucketed_mean(x):
    if x.shape[0] == 0:
        return jnp.float32(0.0)
    return _finish(x[:1], np.float32(x.mean()))
