# expect: inefficient via retrace, host_sync; examples passed, property passed
# dodge: host_compute
# why: plain Python over x.tolist() and float(delta): every value leaves the device
# and the loss is computed one element at a time on the host.
import numpy as np


def huber(x, delta):
    d = float(delta)
    out = [0.5 * v * v if abs(v) <= d else d * (abs(v) - 0.5 * d) for v in x.tolist()]
    return np.asarray(out, dtype=np.float32)
