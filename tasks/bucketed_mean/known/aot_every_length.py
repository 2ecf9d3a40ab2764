# expect: inefficient via retrace; examples passed, property passed
# dodge: ahead_of_time
# why: one program per length, all 31 of them (the script's lengths are the same on
# every machine) compiled at import with jit(...).lower(...).compile(): the calls then
# compile nothing, but the file compiled 31 programs where the reference compiles 3.
import jax
import jax.numpy as jnp
import numpy as np

_LENGTHS = [33, 40, 47, 60, 70, 100, 111, 127, 130, 200, 231, 255] + list(range(1, 20))


def _mean(x):
    return jnp.mean(x)


_compiled = {n: jax.jit(_mean).lower(np.zeros(n, np.float32)).compile() for n in _LENGTHS}
_fallback = jax.jit(_mean)


def bucketed_mean(x):
    n = x.shape[0]
    if n == 0:
        return 0.0
    program = _compiled.get(n)
    return program(x) if program is not None else _fallback(x)
