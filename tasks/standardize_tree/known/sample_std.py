# expect: wrong_answer via examples, property; retrace skipped
# why: uses the sample standard deviation (ddof=1); the task asks for the population one.
import jax
import jax.numpy as jnp


@jax.jit
def standardize_tree(params):
    return jax.tree.map(lambda x: (x - jnp.mean(x)) / (jnp.std(x, ddof=1) + 1e-6), params)
