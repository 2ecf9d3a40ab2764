# expect: inefficient via cost; examples passed, property passed
# why: pads every matrix to 64 x 64 (the bucketing habit of step 15) and slices the product: one compile for every shape, but 256 times the reference's flops on a narrow chain.
import jax
import jax.numpy as jnp


def _pad(z):
    return jnp.pad(z, ((0, 64 - z.shape[0]), (0, 64 - z.shape[1])))


@jax.jit
def chain_matmul(a, b, c):
    product = jnp.linalg.multi_dot([_pad(a), _pad(b), _pad(c)])
    return product[:a.shape[0], :c.shape[1]]
