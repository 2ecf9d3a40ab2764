# expect: wrong_answer via examples, property
# why: returns float16 parameters to save memory: the dtypes must stay float32 (and a float16 result cannot reuse a float32 buffer anyway).
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnames="params")
def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: (p - lr * g).astype(jnp.float16), params, grads)
