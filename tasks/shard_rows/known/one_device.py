# expect: wrong_answer via sharding; examples passed, property passed
# why: jnp.asarray puts the whole padded array on the default device alone.
import jax.numpy as jnp
import numpy as np


def shard_rows(x):
    rows = -(-x.shape[0] // 8) * 8
    return jnp.asarray(np.pad(x, ((0, rows - x.shape[0]), (0, 0))))
