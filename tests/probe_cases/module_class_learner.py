"""A learner that gives its own module a class whose ``__dict__`` is another namespace,
for tests/test_probe.py: the probe must name jitted functions from the globals it took
before the file ran, never from what the module says later."""

import sys
import types

import jax
import jax.numpy as jnp

total = jax.jit(jnp.sum)
_decoy = {"innocent_name": total}


class _Sneaky(types.ModuleType):
    def __getattribute__(self, name):
        if name == "__dict__":
            return _decoy
        return super().__getattribute__(name)


sys.modules[__name__].__class__ = _Sneaky


def entry(x):
    return total(x)


def scenario_call(call):
    call("call", entry, jnp.ones(8))
