# expect: wrong_answer via examples, property, sharding
# why: pads correctly but returns the NumPy array: nothing is on the devices.
import numpy as np


def shard_rows(x):
    return np.pad(x, ((0, -x.shape[0] % 8), (0, 0)))
