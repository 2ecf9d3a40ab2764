# expect: inefficient via jaxpr; property passed
# why: turns on 64-bit mode to sum "safely" in float64 and casts back: right values, but
# the program computes in float64, which accelerators run slowly (or not at all), and
# the jaxpr shows it.
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)


@jax.jit
def safe_mean(x):
    total = jnp.sum(x.astype(jnp.float64))
    return (total / max(x.shape[0], 1)).astype(jnp.float32)
