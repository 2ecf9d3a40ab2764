# expect: wrong_answer via property
# why: rebuilds the sum row by row with jnp.array: an empty 2-D pair comes back as shape (0,), not (0, m).
import jax.numpy as jnp


def canonical_pair_sum(pair):
    if isinstance(pair, dict):
        pair = (pair["a"], pair["b"])
    a, b = pair
    return jnp.array([ra + rb for ra, rb in zip(a, b)], dtype=jnp.float32)
