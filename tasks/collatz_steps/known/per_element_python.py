# expect: inefficient via sync; examples passed, property passed, retrace passed
# why: plain Python per element: exact, but int(v) pulls every element to the host.
import jax.numpy as jnp


def _count(v):
    steps = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        steps += 1
    return steps


def collatz_steps(n):
    return jnp.array([_count(int(v)) for v in n], dtype=jnp.int32)
