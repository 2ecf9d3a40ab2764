# expect: wrong_answer via examples, property
# why: sums everything into one number instead of adding the two arrays element by element.
import jax
import jax.numpy as jnp


@jax.jit
def _total(a, b):
    return jnp.sum(jnp.stack([a, b]))


def canonical_pair_sum(pair):
    if isinstance(pair, dict):
        pair = (pair["a"], pair["b"])
    return _total(*pair)
