# expect: wrong_answer via examples, property
# why: pads with zeros and takes jnp.mean of the padded array: divides by the bucket size, not the length.
import jax
import jax.numpy as jnp
import numpy as np

_mean = jax.jit(jnp.mean)


def bucketed_mean(x):
    n = len(x)
    size = max(8, 1 << max(n - 1, 0).bit_length())
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _mean(padded)
