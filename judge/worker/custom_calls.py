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

The program is read by a walk of its operations (each custom call's target name), not
by rendering its text (``get_asm``: some 35 times slower, tens of milliseconds for a
program of a thousand operations); the registry is listed only for a program that
makes a custom call.  The registry listing cannot stand in for reading the program: a
target registered for the untyped API (``api_version=0``) is not in it, and compiles.

Counted once per compiled program (a program holding the call, compiled during a
call or while the file loads, is that call's work off the device); the sync check
compares it with the reference's, which registers none.
"""

from __future__ import annotations

import re

_TARGET = re.compile(r"custom_call\s*@([\w.$-]+)|call_target_name\s*=\s*\"([^\"]+)\"")
_PLATFORM = "cpu"


_CAPSULE: list = []  # (PyCapsule_GetName, PyCapsule_GetPointer), the judge's own


def _capsule_functions():
    """ctypes functions of the judge's own for reading a capsule, made once: not the
    shared ``ctypes.pythonapi`` attributes, whose types a learner's code may set."""
    if not _CAPSULE:
        import ctypes

        get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
            ("PyCapsule_GetName", ctypes.pythonapi)
        )
        get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
            ("PyCapsule_GetPointer", ctypes.pythonapi)
        )
        _CAPSULE.append((get_name, get_pointer))
    return _CAPSULE[0]


def _pointer(capsule) -> int | None:
    try:
        get_name, get_pointer = _capsule_functions()
        return get_pointer(capsule, get_name(capsule))
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


def _text_targets(module) -> set[str]:
    """The custom-call targets a lowered MLIR module calls, read from its text (tens of
    milliseconds for a program of a few thousand operations: only where the walk of
    ``_targets`` cannot be made)."""
    try:
        text = module.operation.get_asm(large_elements_limit=8)
    except Exception:
        text = str(module)
    return {a or b for a, b in _TARGET.findall(text)}


def _mlir_reader():
    """(StringAttr, WalkResult.ADVANCE) of jax's MLIR bindings, taken before the learner's
    file runs; None where this jax has no ``walk`` (the text is read instead)."""
    try:
        from jax._src.lib import mlir

        if not hasattr(mlir.ir.Operation, "walk"):
            return None
        return mlir.ir.StringAttr, mlir.ir.WalkResult.ADVANCE
    except Exception:
        return None


def _targets(module, reader=None) -> set[str]:
    """The custom-call targets a lowered MLIR module calls: a walk of its operations,
    nested ones included, reading each custom call's ``call_target_name`` (no text is
    rendered: about 2 us an operation).  ``reader``: ``_mlir_reader()``'s."""
    reader = reader or _mlir_reader()
    if reader is None:
        return _text_targets(module)
    string_attr, advance = reader
    found: set[str] = set()

    def visit(op):
        if "custom_call" in op.name:
            found.add(str(string_attr(op.attributes["call_target_name"]).value))
        return advance

    try:
        module.operation.walk(visit)
    except Exception:  # an operation this walk cannot read: read the text
        return _text_targets(module)
    return found


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
        reader = _mlir_reader()
        self._compiler = compiler
        self._original = compiler.compile_or_get_cached
        original = self._original

        def compile_or_get_cached(backend, module, *args, **kwargs):
            try:
                targets = _targets(module, reader)
                # the registry is listed only for a program that makes custom calls
                foreign = self.foreign(targets) if targets else set()
                if foreign:
                    report(sorted(foreign))
            except Exception:  # reading is best effort; the compile must still happen
                pass
            return original(backend, module, *args, **kwargs)

        self.wrapper = compile_or_get_cached
        compiler.compile_or_get_cached = compile_or_get_cached

    def foreign(self, targets: set[str], now: dict | None = None) -> set[str]:
        """Of ``targets``, those that are not jax's own handler (``now``: the registry
        as it is, read again when not given)."""
        now = _registered() if now is None else now
        return {t for t in targets if t not in self._own or (t in now and now[t] != self._own[t])}

    def in_place(self) -> bool:
        return self._compiler.compile_or_get_cached is self.wrapper

    def close(self) -> None:
        if self.in_place():
            self._compiler.compile_or_get_cached = self._original
