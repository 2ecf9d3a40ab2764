# expect: wrong_answer via prints; property passed
# why: logs twice: a jax.debug.print inside the jitted helper and a print in the
# wrapper around it both run on every call, so every call prints two norm= lines.
import jax
import jax.numpy as jnp


@jax.jit
def _norm(x):
    norm = jnp.sqrt(jnp.sum(jnp.square(x)))
    jax.debug.print("norm={}", norm)
    return norm


def logged_norm(x):
    norm = _norm(x)
    print("norm=", norm)
    return norm
