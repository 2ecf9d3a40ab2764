# expect: accepted; jaxpr passed
# why: lets jnp.mean give NaN for the empty input and replaces it with jnp.nan_to_num: a
# handful of extra elementwise equations on a scalar, within the program-size budget.
import jax
import jax.numpy as jnp


@jax.jit
def safe_mean(x):
    return jnp.nan_to_num(jnp.mean(x.astype(jnp.float32)))
