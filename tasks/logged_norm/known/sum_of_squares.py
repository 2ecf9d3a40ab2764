# expect: wrong_answer via examples, property, prints
# why: forgets the square root: returns the squared norm (and logs it).
import jax
import jax.numpy as jnp


@jax.jit
def logged_norm(x):
    sq = jnp.sum(x * x)
    jax.debug.print("norm={n}", n=sq)
    return sq
