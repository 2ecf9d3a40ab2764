import jax
import jax.numpy as jnp
from jax import lax


def _not_done(state):
    # state = (values, steps); keep looping while any value is not 1 yet.
    raise NotImplementedError


def _step(state):
    # One Collatz step for the elements that are not done; count it for them only.
    raise NotImplementedError


@jax.jit
def collatz_steps(n):
    raise NotImplementedError("run lax.while_loop(_not_done, _step, (n, zeros)) and return the counts")
