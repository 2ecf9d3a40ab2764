# expect: accepted; jaxpr passed
# why: eager jnp on x.addressable_data(0), x's own buffer in a new object: an input whose buffers a program read is read (was inefficient, found by the stop-30 attack review)
import jax
import jax.numpy as jnp


def safe_mean(x):
    if not isinstance(x, jax.core.Tracer):
        x = x.addressable_data(0)
    return jnp.sum(x.astype(jnp.float32)) / max(x.shape[0], 1)
