# expect: accepted
# why: the other right answer: a jitted helper computes the norm, and a plain Python
# wrapper prints after it on every call (float() waits for the value; fine for a log).
import jax
import jax.numpy as jnp


@jax.jit
def _norm(x):
    return jnp.linalg.norm(x)


def logged_norm(x):
    norm = _norm(x)
    print(f"norm={float(norm):.6g}")
    return norm
