# expect: wrong_answer via property; examples passed, prints passed
# why: the overflow-safe scaled norm max|x| * ||x / max|x|||: right for most inputs, but
# an all-zero x gives 0 * sqrt(sum((0/0)**2)) = nan, where the norm is 0.
import jax
import jax.numpy as jnp


@jax.jit
def logged_norm(x):
    scale = jnp.max(jnp.abs(x), initial=0.0)
    norm = scale * jnp.sqrt(jnp.sum((x / scale) ** 2))
    jax.debug.print("norm={n}", n=norm)
    return norm
