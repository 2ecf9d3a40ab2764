# expect: runtime_error via examples, property; retrace skipped
# why: loops over the elements with a Python `if`: under jit each comparison is a
# tracer, and `if` asks for its truth value: TracerBoolConversionError.
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta):
    out = []
    for i in range(x.shape[0]):
        v = x[i]
        if jnp.abs(v) <= delta:
            out.append(0.5 * v * v)
        else:
            out.append(delta * (jnp.abs(v) - 0.5 * delta))
    return jnp.stack(out) if out else jnp.zeros_like(x)
