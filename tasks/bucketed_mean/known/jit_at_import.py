# expect: accepted; retrace passed
# why: the reference's buckets and mask, with the jitted function made at import by
# jax.jit(...) and its bucket sizes listed there too, but nothing traced or compiled
# until a call asks: building a jit costs no program.
import jax
import jax.numpy as jnp
import numpy as np

_BUCKETS = [8 << k for k in range(7)]          # 8 .. 512


def _masked_mean(padded, n):
    mask = jnp.arange(padded.shape[0]) < n
    total = jnp.sum(jnp.where(mask, padded, 0.0))
    return jnp.where(n > 0, total / jnp.maximum(n, 1), 0.0).astype(jnp.float32)


_program = jax.jit(_masked_mean)


def bucketed_mean(x):
    n = x.shape[0]
    size = next(b for b in _BUCKETS if b >= n)
    padded = np.zeros(size, np.float32)
    padded[:n] = x
    return _program(padded, np.int32(n))
