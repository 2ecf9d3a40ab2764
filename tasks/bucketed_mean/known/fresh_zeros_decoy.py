# expect: inefficient via retrace; examples passed, property passed
# dodge: host_compute
# why: the mean is computed in NumPy on the host; a decoy jnp.zeros as large as x, made
# on the device in each call, is what the program reads.  An array made on the device
# holds none of x's values, so it does not stand in for x.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _finish(decoy, mean):
    return mean + 0.0 * decoy[0]


def bucketed_mean(x):
    x = np.asarray(x, np.float32)
    mean = np.float32(x.mean()) if x.size else np.float32(0.0)
    return _finish(jnp.zeros(max(x.size, 1), jnp.float32), mean)
