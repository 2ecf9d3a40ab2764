# expect: inefficient via retrace; examples passed, property passed
# dodge: host_compute
# why: the mean is computed in NumPy on the host; a NumPy decoy of zeros as large as x,
# made in each call, is sent to the device with it.  A host array sent to the device
# stands in for x only where its values hold x's (a padded copy does), so it does not.
import jax
import numpy as np


@jax.jit
def _finish(decoy, mean):
    return mean + 0.0 * decoy[0]


def bucketed_mean(x):
    x = np.asarray(x, np.float32)
    mean = np.float32(x.mean()) if x.size else np.float32(0.0)
    return _finish(np.zeros(max(x.size, 1), np.float32), mean)
