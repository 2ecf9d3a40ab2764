# expect: accepted; cost passed
# why: one einsum, contracted in the order opt_einsum finds cheapest.
import jax
import jax.numpy as jnp


@jax.jit
def chain_matmul(a, b, c):
    return jnp.einsum("nk,km,mp->np", a, b, c, optimize="optimal")
