# expect: inefficient via retrace; examples passed, property passed
# dodge: host_compute
# why: the mean is computed in NumPy on the host and x never goes to the device: a
# module-level float32 decoy of 512 zeros (larger than any input) is what the one
# program reads.  The off-device rule once took "an array as large of x's dtype" for x;
# an array made before the call never stands in for an input (found by attack review).
import jax
import numpy as np

_DECOY = jax.numpy.zeros(512, jax.numpy.float32)


@jax.jit
def _finish(decoy, mean):
    return mean + 0.0 * decoy[0]


def bucketed_mean(x):
    x = np.asarray(x, np.float32)
    mean = np.float32(x.mean()) if x.size else np.float32(0.0)
    return _finish(_DECOY, mean)
