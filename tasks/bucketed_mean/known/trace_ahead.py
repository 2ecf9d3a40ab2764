# expect: inefficient via retrace; examples passed, property passed
# dodge: ahead_of_time
# why: the same programs prepared at import through jax.jit(f).trace(x).lower().compile(),
# the staged API's other door: one program per length, compiled before any call asks.
import jax
import jax.numpy as jnp
import numpy as np

_LENGTHS = [33, 40, 47, 60, 70, 100, 111, 127, 130, 200, 231, 255] + list(range(1, 20))
_jitted = jax.jit(lambda x: jnp.mean(x))
_compiled = {n: _jitted.trace(np.zeros(n, np.float32)).lower().compile() for n in _LENGTHS}


def bucketed_mean(x):
    n = x.shape[0]
    if n == 0:
        return 0.0
    program = _compiled.get(n)
    return program(x) if program is not None else _jitted(x)
