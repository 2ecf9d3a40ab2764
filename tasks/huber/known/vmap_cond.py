# expect: accepted; retrace passed
# why: writes the scalar rule with lax.cond and vmaps it over x: under vmap a cond on a
# batched predicate becomes a select, so both branches run and the choice is per element.
import jax
import jax.numpy as jnp
from jax import lax


def _one(xi, delta):
    return lax.cond(jnp.abs(xi) <= delta,
                    lambda v: 0.5 * v * v,
                    lambda v: delta * (jnp.abs(v) - 0.5 * delta), xi)


huber = jax.jit(jax.vmap(_one, in_axes=(0, None)))
