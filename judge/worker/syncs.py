"""Host syncs made by the learner's code, counted inside the worker.

A *pull* brings an array's value back to the host: ``float(x)``, ``int(x)``,
``bool(x)`` (so ``if x > 0:``), ``x.item()``, ``x.tolist()``, ``np.asarray(x)``,
``np.array(x)``, ``print(x)`` / ``str`` / ``repr`` / ``format`` of an array,
``jax.device_get``, indexing a Python sequence with a JAX integer (``__index__``).
A *wait* blocks until a value is computed without moving it: ``x.block_until_ready()``,
``jax.block_until_ready``.  A *callback* is a host round-trip compiled into the
program: ``jax.debug.print``, ``jax.debug.callback``, ``jax.pure_callback``,
``jax.experimental.io_callback``, counted each time it runs.  Each record is
``{"kind", "category": "pull"|"wait"|"callback", "line", "code"}``, line and code from
the nearest frame of the learner's file.

Choke points (jax 0.10.2).  ``ArrayImpl`` is jaxlib's C++ class with jax's Python
methods attached, so those methods (``__float__``, ``__int__``, ``__bool__``,
``__index__``, ``__complex__``, ``item``, ``tolist``, ``tobytes``, ``__array__``,
``__format__``, ``__str__``, ``__repr__``, ``__reduce__``, ``copy_to_host_async``,
``block_until_ready``) and the ``_value`` property they all read are replaced by
counting wrappers.  ``np.asarray(x)`` on a CPU array never reaches Python: numpy reads
the C++ buffer protocol.  So ``numpy.asarray``/``array``/``asanyarray``/
``ascontiguousarray`` are wrapped too, counting only when handed a jax array (or a
list or tuple holding one).  ``jax.device_get`` and ``jax.block_until_ready`` are
wrapped at the ``jax`` module; runtime callbacks at ``debug_callback_impl``,
``pure_callback_impl`` and ``io_callback_impl``, where each invocation passes.

Counting rules.  One logical pull counts once: the outermost wrapper records and
everything it reaches (``device_get`` -> ``__array__`` -> ``_value``) is silent.  A pull
counts whether or not the array already holds a host copy (``_npy_value``): the check
is about the learner's code asking for a host value, and the second ``np.asarray`` of
the same array is the same habit as the first.  A pull counts only when a frame of the
learner's file is on the stack and no jit dispatch frame (``cache_miss``) stands between
it and the pull: jax reading a constant while compiling the learner's function is not
the learner's sync, but the learner's own ``np.asarray`` while jax traces their body is.
Nothing counts between ``end()`` and ``begin()`` or inside ``paused()`` (per thread).

What it cannot see: numpy functions other than the four wrapped ones applied straight
to a jax array (``np.sum(x)``, ``np.add(x, 1)``, ``memoryview(x)``) read the buffer in
C++; ``np.from_dlpack``/``__dlpack__`` shares memory without a Python-level pull; names
bound before the counter was created (``from numpy import asarray`` in a module imported
earlier) keep the unwrapped function; a learner can restore or bypass the patched
attributes (``type(x).__dict__``, ``jaxlib`` internals); any transfer done inside C++
(sharding, dispatch) is invisible.  A runtime callback gets the line where its
``jax.debug.print``/``callback`` call was traced, or the callback's ``def`` line, or
none; a callback still running after ``end()`` has flushed effects would be lost.
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import sys
import threading

import jax
import jax.debug
import jax.experimental
import numpy as np
from jax._src import callback as callback_mod
from jax._src import debugging
from jax._src.array import ArrayImpl

from .probe import LearnerSource, is_jit_frame

_ARRAY_TYPE = ArrayImpl  # jaxlib's C++ class, jax's Python methods attached

_ARRAY_PULLS = {
    "__float__": "float()", "__int__": "int()", "__complex__": "complex()",
    "__bool__": "bool()", "__index__": "index()", "item": ".item()",
    "tolist": ".tolist()", "tobytes": ".tobytes()", "__array__": "np.asarray",
    "__format__": "format()", "__str__": "print/str", "__repr__": "print/str",
    "__reduce__": "pickle", "copy_to_host_async": ".copy_to_host_async()",
}
_NUMPY_PULLS = ("asarray", "array", "asanyarray", "ascontiguousarray")


class _ThreadState(threading.local):
    busy = False  # inside a counted pull or callback: what it reaches is not new
    paused = 0


_thread = _ThreadState()
_current: "SyncCounter | None" = None
_restore: list[tuple[object, str, object]] = []
_sites: dict = {}  # fmt string or callback function -> learner line where it was traced


class SyncCounter:
    """Collects the learner's host syncs between ``begin()`` and ``end()``.

    Patching happens once per process; the newest counter receives the records.
    """

    def __init__(self, learner_file: str):
        global _current
        self._source = LearnerSource(learner_file)
        self._records: list[dict] = []
        self._active = False
        _current = self
        if not _restore:
            _install()

    def begin(self) -> None:
        self._records = []
        self._active = True

    def end(self) -> list[dict]:
        with self.paused():
            try:  # callbacks compiled into the learner's program may still be running
                jax.effects_barrier()
            except Exception:
                pass
        self._active = False
        records, self._records = self._records, []
        return records

    @contextlib.contextmanager
    def paused(self):
        _thread.paused += 1
        try:
            yield
        finally:
            _thread.paused -= 1

    def close(self) -> None:
        """Put every patched attribute back (tests; the worker process just exits)."""
        global _current
        if _current is self:
            _current = None
            while _restore:
                owner, name, original = _restore.pop()
                setattr(owner, name, original)

    # -- recording

    def _listening(self) -> bool:
        return self._active and not _thread.paused and not _thread.busy

    def _record_pull(self, kind: str, category: str, frame) -> None:
        while frame is not None:
            if self._source.owns(frame.f_code.co_filename):
                self._records.append(self._at(kind, category, frame.f_lineno))
                return
            if is_jit_frame(frame):  # jax compiling on the learner's behalf
                return
            frame = frame.f_back

    def _record_callback(self, kind: str, key, user_function, caller) -> None:
        near = self._source.nearest_frame(caller)
        if near is not None:  # an eager callback: the learner's line is on this stack
            self._records.append(self._at(kind, "callback", near.f_lineno))
            return
        line = _site_line(key)
        if line is None:
            code = getattr(user_function, "__code__", None)
            if code is not None and self._source.owns(code.co_filename):
                line = code.co_firstlineno
        self._records.append(self._at(kind, "callback", line))

    def _at(self, kind: str, category: str, line: int | None) -> dict:
        code = linecache.getline(self._source.path, line).strip() if line else None
        return {"kind": kind, "category": category, "line": line, "code": code or None}


def _site_line(key) -> int | None:
    try:
        return _sites.get(key)
    except TypeError:  # an unhashable callable
        return None


# ---------------------------------------------------------------- the patches

def _patch(owner, name: str, replacement) -> None:
    original = vars(owner)[name] if isinstance(owner, type) else getattr(owner, name)
    _restore.append((owner, name, original))
    setattr(owner, name, replacement)


def _counted(kind: str, category: str, call, caller, *args, **kwargs):
    counter = _current
    if counter is None or not counter._listening():
        return call(*args, **kwargs)
    _thread.busy = True
    try:
        result = call(*args, **kwargs)
    finally:
        _thread.busy = False
    counter._record_pull(kind, category, caller)  # only a pull that succeeded
    return result


# nanobind methods have no string __qualname__, which functools.wraps insists on
_wraps = functools.partial(functools.wraps, assigned=("__name__", "__doc__"))


def _method(original, kind: str, category: str = "pull"):
    @_wraps(original)
    def wrapper(*args, **kwargs):
        return _counted(kind, category, original, sys._getframe(1), *args, **kwargs)
    return wrapper


def _holds_array(value) -> bool:
    if isinstance(value, _ARRAY_TYPE):
        return True
    return isinstance(value, (list, tuple)) and any(isinstance(v, _ARRAY_TYPE) for v in value)


def _numpy_function(original, kind: str):
    # numpy and jax call these on plain data all the time: only an array argument pays
    @_wraps(original)
    def wrapper(*args, **kwargs):
        if not args or not _holds_array(args[0]):
            return original(*args, **kwargs)
        return _counted(kind, "pull", original, sys._getframe(1), *args, **kwargs)
    return wrapper


def _value_property(prop: property) -> property:
    def get(self):
        return _counted("host copy", "pull", prop.__get__, sys._getframe(1), self)
    return property(get, doc=prop.__doc__)


def _install() -> None:
    for name, kind in _ARRAY_PULLS.items():
        _patch(_ARRAY_TYPE, name, _method(vars(_ARRAY_TYPE)[name], kind))
    _patch(_ARRAY_TYPE, "block_until_ready",
           _method(vars(_ARRAY_TYPE)["block_until_ready"], ".block_until_ready()", "wait"))
    _patch(_ARRAY_TYPE, "_value", _value_property(vars(_ARRAY_TYPE)["_value"]))
    for name in _NUMPY_PULLS:
        _patch(np, name, _numpy_function(getattr(np, name), f"np.{name}"))
    _patch(jax, "device_get", _method(jax.device_get, "device_get"))
    _patch(jax, "block_until_ready",
           _method(jax.block_until_ready, "jax.block_until_ready", "wait"))
    _install_callbacks()


# ---------------------------------------------------------------- host callbacks

def _install_callbacks() -> None:
    debug_impl = _runtime_callback(debugging.debug_callback_impl, _debug_identity)
    # the lowered program calls debug_callback_p.impl; eager jax.debug.print calls the
    # module global directly
    _patch(debugging, "debug_callback_impl", debug_impl)
    _patch(debugging.debug_callback_p, "impl", debug_impl)
    _patch(callback_mod, "pure_callback_impl", _runtime_callback(
        callback_mod.pure_callback_impl, _flat_identity("pure_callback")))
    _patch(callback_mod, "io_callback_impl", _runtime_callback(
        callback_mod.io_callback_impl, _flat_identity("io_callback")))
    for module, name in ((jax.debug, "print"), (jax.debug, "callback"),
                         (jax, "pure_callback"), (jax.experimental, "io_callback")):
        _patch(module, name, _site_recorder(getattr(module, name)))


def _site_recorder(original):
    """Remember the learner's line for a callback traced now and run later."""
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        counter = _current
        if counter is not None and args:
            near = counter._source.nearest_frame(sys._getframe(1))
            if near is not None:
                with contextlib.suppress(TypeError):  # an unhashable callable
                    _sites[args[0]] = near.f_lineno
        return original(*args, **kwargs)
    return wrapper


def _runtime_callback(original, identify):
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        counter = _current
        if counter is None or not counter._listening():
            return original(*args, **kwargs)
        try:
            kind, key, function = identify(kwargs.get("callback"))
            counter._record_callback(kind, key, function, sys._getframe(1))
        except Exception:  # attribution is best effort; the callback must still run
            pass
        _thread.busy = True  # pulls inside the callback's own body are part of it
        try:
            return original(*args, **kwargs)
        finally:
            _thread.busy = False
    return wrapper


def _debug_identity(callback):
    """jax.debug.print or jax.debug.callback, from the flat callback jax built."""
    cells = dict(zip(callback.__code__.co_freevars,
                     (c.cell_contents for c in callback.__closure__ or ())))
    inner = cells.get("callback")
    if isinstance(inner, functools.partial) and inner.func.__name__ == "_format_print_callback":
        return "jax.debug.print", inner.args[0], None
    return "jax.debug.callback", inner, inner


def _flat_identity(kind: str):
    def identify(callback):
        function = getattr(callback, "callback_func", None)
        return kind, function, function
    return identify
