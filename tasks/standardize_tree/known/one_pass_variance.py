# expect: wrong_answer via property
# why: the one-pass variance E[x**2] - E[x]**2: algebraically right, but when a leaf's
# mean is large against its spread the subtraction cancels most digits (off by 1e-2).
import jax
import jax.numpy as jnp


def _one(x):
    mean = jnp.mean(x)
    var = jnp.maximum(jnp.mean(x * x) - mean * mean, 0.0)
    return (x - mean) / (jnp.sqrt(var) + 1e-6)


@jax.jit
def standardize_tree(params):
    return jax.tree.map(_one, params)
