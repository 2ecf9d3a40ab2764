"""Hostile: asks XLA for 4 TiB."""
import jax.numpy as jnp


def solve(x):
    return jnp.ones((1 << 40,))
