# expect: accepted; cost passed
# why: jnp.linalg.multi_dot picks the cheapest order itself, from the static shapes.
import jax.numpy as jnp


def chain_matmul(a, b, c):
    return jnp.linalg.multi_dot([a, b, c])
