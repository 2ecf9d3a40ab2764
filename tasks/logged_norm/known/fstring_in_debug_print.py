# expect: wrong_answer via prints; property passed
# why: formats the line with an f-string before handing it to jax.debug.print: the
# f-string runs at trace time, so every call prints "norm=JitTracer(float32[])", the
# placeholder's text, never the value.
import jax
import jax.numpy as jnp


@jax.jit
def logged_norm(x):
    norm = jnp.sqrt(jnp.sum(x * x))
    jax.debug.print(f"norm={norm}")
    return norm
