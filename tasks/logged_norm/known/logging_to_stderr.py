# expect: wrong_answer via prints; property passed
# why: logs with the logging module, whose default handler writes to standard error:
# the line is there, but not on standard output.
import logging

import jax
import jax.numpy as jnp

logging.basicConfig(level=logging.INFO, format="%(message)s")
_norm = jax.jit(jnp.linalg.norm)


def logged_norm(x):
    norm = _norm(x)
    logging.info("norm=%s", norm)
    return norm
