# expect: wrong_answer via examples, property; retrace skipped
# why: standardizes with one mean and one std over all leaves together; the task asks
# for each leaf's own statistics.
import jax
import jax.numpy as jnp


@jax.jit
def standardize_tree(params):
    leaves = jax.tree.leaves(params)
    if not leaves:
        return params
    flat = jnp.concatenate([jnp.ravel(l) for l in leaves])
    mean, std = jnp.mean(flat), jnp.std(flat)
    return jax.tree.map(lambda x: (x - mean) / (std + 1e-6), params)
