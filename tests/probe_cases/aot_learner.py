"""A learner that prepares programs ahead of time, for tests/test_probe.py."""

import jax
import jax.numpy as jnp
import numpy as np


def _mean(x):
    return jnp.mean(x)


_lowered = {n: jax.jit(_mean).lower(np.zeros(n, np.float32)).compile() for n in (3, 5)}  # L:aot
_traced = jax.jit(_mean).trace(np.zeros(7, np.float32)).lower().compile()  # L:trace
_only_jitted = jax.jit(_mean)   # building a jit compiles nothing


def scenario_call_compiled(call):
    call("call", _lowered[3], np.ones(3, np.float32))


def scenario_aot_in_call(call):
    call("call", lambda: jax.jit(_mean).lower(np.zeros(9, np.float32)).compile())  # L:in_call
