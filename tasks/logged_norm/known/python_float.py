# expect: wrong_answer via examples, property, prints
# why: returns the Python float it printed; the task asks for the float32 norm.
import jax
import jax.numpy as jnp

_norm = jax.jit(lambda x: jnp.sqrt(jnp.sum(x * x)))


def logged_norm(x):
    value = float(_norm(x))
    print(f"norm={value}")
    return value
