"""The custom-call reader (judge/worker/custom_calls.py) walks each program's operations
and renders no program's text (the costly part), and a target the learner registers at
any time after the snapshot of jax's own (before the first program, between calls) is
still named, one registered for the untyped API included (XLA's listing of its registry
does not show those, so the listing cannot stand in for reading the program).  In a
fresh process, as the worker has it (the snapshot is taken when the reader is made)."""

from __future__ import annotations

from helpers import python_json

SCENARIO = r"""
import ctypes, json
import jax
import jax.numpy as jnp
from judge.worker import custom_calls
from judge.worker.custom_calls import CustomCallWatch

rendered = []
_text_targets = custom_calls._text_targets
def counting(module):
    rendered.append(1)
    return _text_targets(module)
custom_calls._text_targets = counting

got = []
watch = CustomCallWatch(got.append)
steps = {}

def step(name):
    steps[name] = {"rendered": len(rendered), "reported": [list(t) for t in got]}
    rendered.clear()
    got.clear()

_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
_keep = []

def register(name):
    cb = _PROTO(lambda out, ins: None)
    _keep.append(cb)
    jax.ffi.register_ffi_target(
        name, _new(ctypes.cast(cb, ctypes.c_void_p).value, b"xla._CUSTOM_CALL_TARGET", None),
        platform="cpu", api_version=0)

def calling(name, v):
    return jax.ffi.ffi_call(name, jax.ShapeDtypeStruct((4,), jnp.float32),
                            custom_call_api_version=1)(v)

x = jnp.ones((4, 4)) + 3 * jnp.eye(4)
jax.jit(lambda v: jnp.sin(v) @ v)(x).block_until_ready()
jnp.linalg.solve(x, x).block_until_ready()           # jax's own LAPACK custom calls
step("jax's own only")

listed = len(custom_calls._registered())
register("learner_before_first")                      # before its first program
steps["listed"] = len(custom_calls._registered()) - listed
jax.jit(lambda v: calling("learner_before_first", v))(x[0]).block_until_ready()
step("registered before the first program")

jax.jit(lambda v: v * 2)(x).block_until_ready()       # a call between: nothing of theirs
step("a plain program after")

@jax.jit
def later(v):                                         # registers while being traced
    register("learner_between_calls")
    return calling("learner_between_calls", v)
later(x[0]).block_until_ready()
step("registered between calls")
print(json.dumps(steps))
"""


def test_text_is_read_only_once_the_registry_changes_and_every_late_target_is_named():
    steps = python_json(SCENARIO)
    assert steps.pop("listed") == 0  # an untyped target: not in XLA's listing
    assert steps == {
        "jax's own only": {"rendered": 0, "reported": []},
        "registered before the first program": {
            "rendered": 0,
            "reported": [["learner_before_first"]],
        },
        "a plain program after": {"rendered": 0, "reported": []},
        "registered between calls": {"rendered": 0, "reported": [["learner_between_calls"]]},
    }
