"""Custom calls the learner's code registered and compiled into its programs.

A custom call is a program's call into native code on the host: XLA runs it as one
opaque operation and counts no work for it.  jax makes some of its own (LAPACK's
kernels, the host-callback trampolines, which the sync counter counts each time they
run).  A learner can register one too: ``jax.ffi.register_ffi_target`` with a ctypes
function whose body is a NumPy loop, then ``jax.ffi.ffi_call`` under ``jit``.  Such a
call moves the work off the device as surely as ``np.asarray`` does, without a pull
the sync counter could see: no jax array is read, XLA hands the handler raw pointers.

So every program XLA compiles is read on its way into the compiler
(``jax._src.compiler.compile_or_get_cached``, jax 0.10.2, the door every jit, AOT and
eager program passes, compiled or read from a cache; a private name: the tests in
tests/integration/test_process_and_ffi_gaps.py fail when it moves; ``backend_compile_and_load`` under
it is xla_records.py's), and each
custom-call target in it that jax did not register itself is reported to the sync
counter as a host round trip of the learner's (``custom call `name```).  jax's own
targets are the ones registered before the learner's file loads (LAPACK's are
registered when ``jax._src.lax.linalg`` is imported and the backend has started, both
done here first), kept with the
handler each held then: a learner's handler registered under one of jax's names is
a different handler, and counts too.

Counted once per compiled program (a program holding the call, compiled during a
call or while the file loads, is that call's work off the device); the sync check
compares it with the reference's, which registers none.
"""

from __future__ import annotations

import re

_TARGET = re.compile(r"custom_call\s*@([\w.$-]+)|call_target_name\s*=\s*\"([^\"]+)\"")
_PLATFORM = "cpu"


def _pointer(capsule) -> int | None:
    import ctypes

    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype, api.PyCapsule_GetName.argtypes = (
        ctypes.c_char_p,
        [ctypes.py_object],
    )
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    try:
        return api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))
    except Exception:
        return None


def _handler(value):
    """What a registration points at (its handlers' addresses): fresh capsule objects
    are made for every listing, the functions they hold stay."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _handler(v)) for k, v in value.items()))
    if type(value).__name__ == "PyCapsule":
        return _pointer(value)
    return repr(value)


def _registered() -> dict:
    """Target name -> handler, as XLA's registry holds them now."""
    try:
        from jax._src.lib import xla_client

        return {
            name: _handler(value)
            for name, value in xla_client.custom_call_targets(_PLATFORM).items()
        }
    except Exception:
        return {}


def _targets(module) -> set[str]:
    """The custom-call targets a lowered MLIR module calls."""
    try:
        text = module.operation.get_asm(large_elements_limit=8)
    except Exception:
        text = str(module)
    return {a or b for a, b in _TARGET.findall(text)}


class CustomCallWatch:
    """Reads every compiled program's custom-call targets; ``report(targets)`` is called
    with those jax did not register itself, as the program goes to the compiler."""

    def __init__(self, report):
        import jax
        import jax._src.lax.linalg  # noqa: F401  (jax's LAPACK targets, registered on import)
        from jax._src import compiler

        jax.devices()  # registrations made before the backend starts are held until it does

        self._report = report
        self._own = _registered()
        self._compiler = compiler
        self._original = compiler.compile_or_get_cached
        original = self._original

        def compile_or_get_cached(backend, module, *args, **kwargs):
            try:
                foreign = self.foreign(_targets(module))
                if foreign:
                    report(sorted(foreign))
            except Exception:  # reading is best effort; the compile must still happen
                pass
            return original(backend, module, *args, **kwargs)

        self.wrapper = compile_or_get_cached
        compiler.compile_or_get_cached = compile_or_get_cached

    def foreign(self, targets: set[str]) -> set[str]:
        """Of ``targets``, those that are not jax's own handler."""
        now = _registered()
        return {t for t in targets if t not in self._own or (t in now and now[t] != self._own[t])}

    def in_place(self) -> bool:
        return self._compiler.compile_or_get_cached is self.wrapper

    def close(self) -> None:
        if self.in_place():
            self._compiler.compile_or_get_cached = self._original
