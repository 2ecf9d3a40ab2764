# expect: accepted; retrace failed
# expect --strict: inefficient via retrace
# why: builds a new jitted lambda on every call: it prints every time (the lambda is
# traced every time), but nothing is ever reused; the advisory retrace check says so.
import jax
import jax.numpy as jnp


def logged_norm(x):
    norm = jax.jit(lambda v: jnp.sqrt(jnp.sum(v * v)))(x)
    print("norm=%s" % norm)
    return norm
