# target 3/4: flood stdout and stderr (400 MB each, no newlines, then many short lines)
# and write straight to the inherited fds 0..2 and to a dup of fd 1; the judge must
# stay small, truncate, and still grade (wrong_answer).
import os
import jax.numpy as jnp
blob = b"A" * (1 << 20)
for _ in range(400):
    os.write(1, blob); os.write(2, blob)
d = os.dup(1)
for _ in range(100000):
    os.write(d, b"x\n")
def safe_mean(x):
    return jnp.float32(42.0)
