# expect: inefficient via retrace; examples passed, property passed
# dodge: ahead_of_time
# why: no AOT API at all: the jitted mean is called once at import on every length the
# script will ask for, so jax's own cache holds a program per length before the first
# call; the calls then hit the cache, but each length still cost a trace.
import jax
import jax.numpy as jnp
import numpy as np

_mean = jax.jit(jnp.mean)
for _n in [33, 40, 47, 60, 70, 100, 111, 127, 130, 200, 231, 255] + list(range(1, 20)):
    _mean(np.zeros(_n, np.float32))


def bucketed_mean(x):
    if x.shape[0] == 0:
        return 0.0
    return _mean(x)
