# expect: wrong_answer via prints; property passed, retrace skipped
# why: the classic: a Python print inside the jitted function runs while tracing, so
# the second call with a length already seen (a cache hit) prints nothing.
import jax
import jax.numpy as jnp


@jax.jit
def logged_norm(x):
    norm = jnp.sqrt(jnp.sum(x ** 2))
    print("norm=", norm)
    return norm
