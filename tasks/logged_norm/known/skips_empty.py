# expect: wrong_answer via prints; property passed
# why: does not log empty inputs ("nothing to report"), but the task asks for a line on
# every call, the empty input included.
import jax
import jax.numpy as jnp


@jax.jit
def _norm(x):
    return jnp.sqrt(jnp.sum(x * x))


def logged_norm(x):
    norm = _norm(x)
    if x.size:
        print("norm=", norm)
    return norm
