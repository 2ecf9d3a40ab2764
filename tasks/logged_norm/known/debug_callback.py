# expect: accepted
# why: an unusual right answer: jax.debug.callback hands the value to a host function
# that prints it; like debug.print it is part of the compiled program and runs on every call.
import sys

import jax
import jax.numpy as jnp


def _log(value):
    sys.stdout.write("norm=%s\n" % value)


@jax.jit
def logged_norm(x):
    norm = jnp.sqrt(jnp.dot(x, x))
    jax.debug.callback(_log, norm)
    return norm
