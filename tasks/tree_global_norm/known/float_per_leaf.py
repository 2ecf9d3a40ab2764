# expect: inefficient via sync
# why: pulls each leaf's sum of squares to the host with float() and adds in Python:
# right, but one device-to-host sync per leaf, every call.
import math

import jax
import jax.numpy as jnp

_sq = jax.jit(lambda l: jnp.sum(l * l))


def tree_global_norm(tree):
    total = 0.0
    for leaf in jax.tree.leaves(tree):
        total += float(_sq(leaf))
    return jnp.float32(math.sqrt(total))
