"""A learner that plants a module claiming its own file, for tests/test_probe.py: the
probe must name jitted functions from the module the judge loaded, never a look-alike."""

import sys
import types

import jax
import jax.numpy as jnp

total = jax.jit(jnp.sum)

impostor = types.ModuleType("impostor")
impostor.__file__ = __file__
impostor.innocent_name = total
sys.modules["impostor"] = impostor


def entry(x):
    return total(x)


def scenario_call(call):
    call("call", entry, jnp.ones(8))
