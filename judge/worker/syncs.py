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

Any thread.  A sync is the learner's when any thread of the worker makes it while the
learner's code runs (between ``begin()`` and ``end()``), whatever that thread's stack
says: ``ThreadPoolExecutor().submit(bool, x).result()`` runs ``bool`` on a pool thread
where no frame of the learner's file is, and is the same host round trip as ``bool(x)``.
On the thread that runs the call, a pull counts when a frame of the learner's file, or
the worker's own call of the learner's function (``entry_codes``), is on the stack, so
an entrypoint whose code claims another file (``exec`` with a forged name) still counts;
on any other thread every pull counts.  The record names the thread in its ``kind``
(``bool() on thread 'ThreadPoolExecutor-0_0'``) and, where no learner frame is on that
thread, gives the line that handed it the work: ``threading.Thread.start``,
``ThreadPoolExecutor.submit`` (``map`` and asyncio's ``run_in_executor`` go through it)
and ``_thread.start_new_thread`` are wrapped when the counter is made, before the
learner's file loads, to remember the learner's line that called them.  Those wrappers
only name the line, the count does not rest on them (undoing them is reported as
tampering, like every patch here).

Choke points (jax 0.10.2).  ``ArrayImpl`` is jaxlib's C++ class with jax's Python
methods attached, so those methods (``__float__``, ``__int__``, ``__bool__``,
``__index__``, ``__complex__``, ``item``, ``tolist``, ``tobytes``, ``__array__``,
``__dlpack__``, ``__format__``, ``__str__``, ``__repr__``, ``__reduce__``,
``copy_to_host_async``, ``block_until_ready``) and the ``_value`` property they all
read are replaced by counting wrappers.  NumPy reads a CPU array through the C++
buffer protocol, never reaching Python: ``np.asarray(x)``, ``np.where(x > 0, x, 0)``,
``np.tanh(x)``, ``np.add(x, 0)``, ``memoryview(x)``, ``np_array[:] = x``.  So the
class's ``bf_getbuffer`` slot is replaced (through ctypes, see ``_BufferHook``) by a
callback that counts each read, and numpy functions are named where they are called:
``numpy.asarray``/``array``/``asanyarray``/``ascontiguousarray`` are wrapped (counting
whenever handed a jax array, or a list or tuple holding one), ``ArrayImpl`` gets an
``__array_function__`` that runs numpy's own implementation (so ``np.where``,
``np.copy``, ``np.sum`` keep their results) and every ufunc in numpy's namespace is
replaced by a proxy (``np.tanh``, ``np.maximum``, ``np.add`` and their ``.reduce``,
``.outer``...); a numpy function counts once, as itself, when a read happened inside
it (``np.shape(x)`` reads nothing and counts nothing).  ``jax.device_get`` and
``jax.block_until_ready`` are wrapped at the ``jax`` module; runtime callbacks at
``debug_callback_impl``, ``pure_callback_impl`` and ``io_callback_impl``, where each
invocation passes.

Counting rules.  One logical pull counts once: the outermost wrapper records and
everything it reaches (``device_get`` -> ``__array__`` -> ``_value``) is silent.  A pull
counts whether or not the array already holds a host copy (``_npy_value``): the check
is about the learner's code asking for a host value, and the second ``np.asarray`` of
the same array is the same habit as the first.  A pull counts only when a frame of the
learner's file is on the stack and no jit dispatch frame (``cache_miss``) stands between
it and the pull: jax reading a constant while compiling the learner's function is not
the learner's sync, but the learner's own ``np.asarray`` while jax traces their body is.
Nothing counts between ``end()`` and ``begin()`` or inside ``paused()`` (per thread).

What it cannot see: names bound before the counter was created (``from numpy import
tanh`` in a module imported earlier, ``numpy.core.umath.tanh``) are not named, though
the buffer read inside them still counts (as "buffer protocol"); a learner can restore
or bypass the patched attributes (``type(x).__dict__``, the buffer slot, ``jaxlib``
internals), which the worker's integrity check after every call reports; any transfer
done inside C++ (sharding, dispatch) is invisible.  A process the learner's code would
fork is refused (confine.py, ``refuse_processes``).  A compiled program's custom call
to a handler the learner registered is recorded as ``custom call `name```, category
``custom_call``, once per program (custom_calls.py).  A runtime callback gets the line where its
``jax.debug.print``/``callback`` call was traced, or the callback's ``def`` line, or
none; a callback still running after ``end()`` has flushed effects would be lost.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import linecache
import re
import sys
import threading

import jax
import jax.debug
import jax.experimental
import numpy as np
from jax._src import callback as callback_mod
from jax._src import debugging
from jax._src.array import ArrayImpl

from .jax_frames import is_jit_frame
from .learner_file import LearnerSource

_ARRAY_TYPE = ArrayImpl  # jaxlib's C++ class, jax's Python methods attached

_ARRAY_PULLS = {
    "__float__": "float()",
    "__int__": "int()",
    "__complex__": "complex()",
    "__bool__": "bool()",
    "__index__": "index()",
    "item": ".item()",
    "tolist": ".tolist()",
    "tobytes": ".tobytes()",
    "__array__": "np.asarray",
    "__format__": "format()",
    "__str__": "print/str",
    "__repr__": "print/str",
    "__reduce__": "pickle",
    "copy_to_host_async": ".copy_to_host_async()",
    "__dlpack__": "__dlpack__ (np.from_dlpack)",
    # the C++ doors under those, public or private: a raw pointer read with ctypes, or
    # the host copy itself, is the same pull
    "unsafe_buffer_pointer": ".unsafe_buffer_pointer()",
    "_single_device_array_to_np_array_did_copy": "a host copy (private jax method)",
    "_copy_single_device_array_to_host_async": "a host copy (private jax method)",
}
_NUMPY_PULLS = ("asarray", "array", "asanyarray", "ascontiguousarray")


class _ThreadState(threading.local):
    busy = False  # inside a counted pull or callback: what it reaches is not new
    paused = 0
    reading: list | None = None  # inside a numpy function: [True] once it read an array
    handed: int | None = None  # the learner's line that handed this thread its work item


_thread = _ThreadState()
_current: "SyncCounter | None" = None
_restore: list[tuple[object, str, object, object]] = []
_compiled_outside: list[dict] = []  # custom-call records made between calls
_sites: dict = {}  # fmt string or callback function -> learner line where it was traced


class SyncCounter:
    """Collects the learner's host syncs between ``begin()`` and ``end()``.

    Patching happens once per process; the newest counter receives the records.
    """

    def __init__(self, learner_file: str, entry_codes=()):
        """``entry_codes``: the code objects of the worker's functions that call the
        learner's function: a pull under one of them is inside the learner's call."""
        global _current
        self._source = LearnerSource(learner_file)
        self._entry_codes = frozenset(entry_codes)
        self._records: list[dict] = []
        # how many records this call appended: a record list that ends shorter (cleared
        # or replaced by the learner's code) is tampering (integrity.py reads _shrunk)
        self._appended = 0
        self._shrunk = False
        self._active = False
        self._call_thread: int | None = None
        _current = self
        if not _restore:
            _install()

    def begin(self) -> None:
        self._records = []
        self._appended = 0
        # programs with a custom call of the learner's, compiled while no call ran
        # (the file's load, an AOT compile at import): the next call's work
        while _compiled_outside:
            self._keep(_compiled_outside.pop(0))
        self._call_thread = threading.get_ident()
        self._active = True

    def end(self) -> list[dict]:
        with self.paused():
            try:  # callbacks compiled into the learner's program may still be running
                jax.effects_barrier()
            except Exception:
                pass
        self._active = False
        records, self._records = self._records, []
        if type(records) is not list or len(records) < self._appended:
            self._shrunk = True
            records = records if type(records) is list else []
        self._appended = 0
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
                owner, name, original, _ = _restore.pop()
                if original is _MISSING:
                    delattr(owner, name)
                else:
                    setattr(owner, name, original)
            _buffer_hook.remove()

    # -- recording

    def _listening(self) -> bool:
        return self._active and not _thread.paused and not _thread.busy

    def _record_pull(self, kind: str, category: str, frame) -> None:
        other = threading.get_ident() != self._call_thread
        where = _on_thread(kind) if other else kind
        while frame is not None:
            if self._source.owns(frame.f_code.co_filename):
                self._keep(self._at(where, category, frame.f_lineno))
                return
            if is_jit_frame(frame):  # jax compiling on the learner's behalf
                return
            if frame.f_code in self._entry_codes:  # inside the call, in code of no file of theirs
                self._keep(self._at(where, category, None))
                return
            frame = frame.f_back
        if other:  # a thread of the learner's, a pool's, a callback's: theirs whatever its stack
            line = _handed_line()
            if line is not None:
                where += " (its work was handed over at this line)"
            self._keep(self._at(where, category, line))

    def _record_callback(self, kind: str, key, user_function, caller) -> None:
        near = self._source.nearest_frame(caller)
        if near is not None:  # an eager callback: the learner's line is on this stack
            self._keep(self._at(kind, "callback", near.f_lineno))
            return
        line = _site_line(key)
        if line is None:
            code = getattr(user_function, "__code__", None)
            if code is not None and self._source.owns(code.co_filename):
                line = code.co_firstlineno
        self._keep(self._at(kind, "callback", line))

    def _record_custom_calls(self, targets: list[str], frame) -> None:
        near = self._source.nearest_frame(frame)
        line = near.f_lineno if near is not None else None
        for target in targets:
            record = self._at(f"custom call `{target}`", "custom_call", line)
            if self._active and not _thread.paused:
                self._keep(record)
            elif not _thread.paused:
                _compiled_outside.append(record)

    def _keep(self, record: dict) -> None:
        self._records.append(record)
        self._appended += 1

    def _at(self, kind: str, category: str, line: int | None) -> dict:
        code = linecache.getline(self._source.path, line).strip() if line else None
        return {"kind": kind, "category": category, "line": line, "code": code or None}


def _on_thread(kind: str) -> str:
    """``bool() on thread 'ThreadPoolExecutor-N_N'``: numbers out of the name, so the
    pulls of a thread started anew on every step read as one line of the report."""
    try:
        name = re.sub(r"\d+", "N", str(threading.current_thread().name))[:60]
    except Exception:
        name = "?"
    return f"{kind} on thread {name!r}"


def _handed_line() -> int | None:
    """The learner's line that handed the current thread its work: the pool submission
    running now, else the ``Thread.start`` call that started it."""
    line = _thread.handed
    if line is None:
        line = getattr(threading.current_thread(), "_jj_started_at", None)
    return line if isinstance(line, int) and not isinstance(line, bool) else None


def _learner_line(frame) -> int | None:
    counter = _current
    if counter is None:
        return None
    near = counter._source.nearest_frame(frame)
    return near.f_lineno if near is not None else None


def _handing(function, line: int):
    """``function``, run with ``line`` noted as where its thread's work came from."""

    @functools.wraps(function)
    def handed(*args, **kwargs):
        previous, _thread.handed = _thread.handed, line
        try:
            return function(*args, **kwargs)
        finally:
            _thread.handed = previous

    return handed


def _thread_start(original):
    @functools.wraps(original)
    def start(self):
        try:
            line = _learner_line(sys._getframe(1))
            if line is not None:
                self._jj_started_at = line
        except Exception:  # naming the line must never stop the thread
            pass
        return original(self)

    return start


def _pool_submit(original):
    @functools.wraps(original)
    def submit(self, fn, /, *args, **kwargs):
        try:
            line = _learner_line(sys._getframe(1))
        except Exception:
            line = None
        if line is not None and callable(fn):
            fn = _handing(fn, line)
        return original(self, fn, *args, **kwargs)

    return submit


def _new_thread(original):
    @functools.wraps(original)
    def start_new_thread(function, *args, **kwargs):
        try:
            line = _learner_line(sys._getframe(1))
        except Exception:
            line = None
        if line is not None and callable(function):
            function = _handing(function, line)
        return original(function, *args, **kwargs)

    return start_new_thread


def _install_handovers() -> None:
    import _thread as low_level
    import concurrent.futures.thread as pool

    _patch(threading.Thread, "start", _thread_start(threading.Thread.start))
    _patch(pool.ThreadPoolExecutor, "submit", _pool_submit(pool.ThreadPoolExecutor.submit))
    _patch(low_level, "start_new_thread", _new_thread(low_level.start_new_thread))


def _site_line(key) -> int | None:
    try:
        return _sites.get(key)
    except TypeError:  # an unhashable callable
        return None


# ---------------------------------------------------------------- the patches

_MISSING = object()


def _patch(owner, name: str, replacement) -> None:
    original = (
        vars(owner).get(name, _MISSING)
        if isinstance(owner, type)
        else getattr(owner, name, _MISSING)
    )
    _restore.append((owner, name, original, replacement))
    setattr(owner, name, replacement)


def installed() -> tuple[list, bool]:
    """What the counter patched (to check later with ``patches_in_place``)."""
    return list(_restore), _buffer_hook.installed


def patches_in_place(patches: tuple[list, bool] | None = None) -> list[str]:
    """The patched attributes that no longer hold the counter's replacement (a learner
    restored or replaced them), and the buffer hook if it was taken out; of ``patches``
    (``installed()``'s answer), or of what is patched now."""
    patched, hooked = patches if patches is not None else installed()
    moved = []
    for owner, name, _, replacement in patched:
        now = (
            vars(owner).get(name, _MISSING)
            if isinstance(owner, type)
            else getattr(owner, name, _MISSING)
        )
        if now is not replacement:
            moved.append(f"{getattr(owner, '__name__', type(owner).__name__)}.{name}")
    if hooked and not _buffer_hook.in_place():
        moved.append("the buffer-protocol hook of jax arrays")
    return moved


class _BufferHook:
    """Counts every read of a jax array through the C buffer protocol.

    numpy reads a CPU ``ArrayImpl`` through its ``bf_getbuffer`` slot without running any
    Python, so the slot itself is replaced by a ctypes callback that counts the read
    and calls jaxlib's original.  Offsets are CPython 3.11's (``tp_as_buffer`` is the
    21st pointer of a type object, ``bf_getbuffer`` the first of the buffer procs); a
    type that has no buffer procs (``int``) and one that does (``bytes``) confirm them
    before anything is written, else nothing is (``installed`` stays False: named numpy
    functions still count, a bare ``memoryview(x)`` does not).  A failure of the
    original (a deleted array) returns -1 without its exception: numpy then falls back
    to ``__array__``, which raises it; ``memoryview`` raises SystemError instead."""

    _AS_BUFFER = 20 * ctypes.sizeof(ctypes.c_void_p)
    _SIGNATURE = (ctypes.c_int, ctypes.py_object, ctypes.c_void_p, ctypes.c_int)

    def __init__(self):
        self.installed = False
        self._slot = self._original = self._callback = None

    def _procs(self, tp) -> int | None:
        return ctypes.c_void_p.from_address(id(tp) + self._AS_BUFFER).value

    def install(self) -> None:
        if (
            sys.version_info[:2] != (3, 11)
            or self._procs(int) is not None
            or self._procs(bytes) is None
            or self._procs(_ARRAY_TYPE) is None
        ):
            return
        self._slot = ctypes.c_void_p.from_address(self._procs(_ARRAY_TYPE))  # type: ignore[arg-type]  # not None: checked above
        if not self._slot.value:
            return
        original = ctypes.PYFUNCTYPE(*self._SIGNATURE)(self._slot.value)
        self._original_address = self._slot.value

        def get_buffer(exporter, view, flags):
            try:
                _on_buffer_read(sys._getframe(1))
            except BaseException:
                pass  # counting must never break the read
            try:
                return original(exporter, view, flags)
            except BaseException:
                return -1

        self._original = original
        self._callback = ctypes.CFUNCTYPE(*self._SIGNATURE)(get_buffer)
        self._slot.value = ctypes.cast(self._callback, ctypes.c_void_p).value
        self.installed = True

    def in_place(self) -> bool:
        return (
            self._callback is not None
            and self._slot.value == ctypes.cast(self._callback, ctypes.c_void_p).value
        )

    def remove(self) -> None:
        if self.installed:
            self._slot.value = self._original_address
            self.installed = False


_buffer_hook = _BufferHook()


def _on_buffer_read(caller) -> None:
    counter = _current
    if counter is None or not counter._listening():
        return
    if _thread.reading is not None:
        _thread.reading[0] = True
        return
    counter._record_pull("buffer protocol", "pull", caller)


def _counted(kind: str, category: str, call, caller, *args, **kwargs):
    counter = _current
    if counter is None or not counter._listening():
        return call(*args, **kwargs)
    if _thread.reading is not None:  # a numpy function reads through us: it counts
        _thread.reading[0] = True
        _thread.busy = True
        try:
            return call(*args, **kwargs)
        finally:
            _thread.busy = False
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


def _reading(kind: str, call, caller, args, kwargs):
    """Run a numpy function; it counts once, as ``kind``, if it read a jax array's values
    (through the buffer protocol, ``__array__`` or ``_value``).  Without the buffer hook,
    a jax array among its arguments is taken as read."""
    counter = _current
    if counter is None or not counter._listening() or _thread.reading is not None:
        return call(*args, **kwargs)
    read = [False]
    _thread.reading = read
    try:
        result = call(*args, **kwargs)
    finally:
        _thread.reading = None
    if read[0] or (not _buffer_hook.installed and any(_holds_array(a) for a in args)):
        counter._record_pull(kind, "pull", caller)
    return result


def _array_function(self, func, types, args, kwargs):
    """``ArrayImpl.__array_function__``: numpy's own implementation, counted by name."""
    name = f"{func.__module__.replace('numpy', 'np', 1)}.{func.__name__}"
    return _reading(name, func._implementation, sys._getframe(1), args, kwargs)


class _CountedUfunc:
    """Stands for a numpy ufunc in numpy's namespace: the same results, and a host read
    of a jax array inside it counts as that ufunc (``np.tanh``, ``np.add.reduce``)."""

    __slots__ = ("_ufunc",)
    _METHODS = ("reduce", "accumulate", "reduceat", "outer", "at")

    def __init__(self, ufunc):
        object.__setattr__(self, "_ufunc", ufunc)

    def __call__(self, *args, **kwargs):
        return _reading(f"np.{self._ufunc.__name__}", self._ufunc, sys._getframe(1), args, kwargs)

    def __getattr__(self, name):
        attr = getattr(self._ufunc, name)
        if name not in self._METHODS:
            return attr

        def method(*args, **kwargs):
            return _reading(
                f"np.{self._ufunc.__name__}.{name}", attr, sys._getframe(1), args, kwargs
            )

        return method

    def __repr__(self):
        return repr(self._ufunc)


def _value_property(prop: property) -> property:
    def get(self):
        return _counted("host copy", "pull", prop.__get__, sys._getframe(1), self)

    return property(get, doc=prop.__doc__)


def _install() -> None:
    for name, kind in _ARRAY_PULLS.items():
        _patch(_ARRAY_TYPE, name, _method(vars(_ARRAY_TYPE)[name], kind))
    _patch(
        _ARRAY_TYPE,
        "block_until_ready",
        _method(vars(_ARRAY_TYPE)["block_until_ready"], ".block_until_ready()", "wait"),
    )
    _patch(_ARRAY_TYPE, "_value", _value_property(vars(_ARRAY_TYPE)["_value"]))
    for name in _NUMPY_PULLS:
        _patch(np, name, _numpy_function(getattr(np, name), f"np.{name}"))
    _patch(_ARRAY_TYPE, "__array_function__", _array_function)
    for name, value in list(vars(np).items()):
        if isinstance(value, np.ufunc):
            _patch(np, name, _CountedUfunc(value))
    _buffer_hook.install()
    _patch(jax, "device_get", _method(jax.device_get, "device_get"))
    _patch(
        jax, "block_until_ready", _method(jax.block_until_ready, "jax.block_until_ready", "wait")
    )
    _install_callbacks()
    _install_handovers()
    _install_custom_calls()


def _install_custom_calls() -> None:
    """Every program compiled from now on is read for custom calls jax did not
    register (custom_calls.py): a learner's FFI handler is work off the device."""
    from .custom_calls import CustomCallWatch

    def report(targets):
        counter = _current
        if counter is not None:
            counter._record_custom_calls(targets, sys._getframe(1))

    watch = CustomCallWatch(report)
    from jax._src import compiler

    _restore.append((compiler, "compile_or_get_cached", watch._original, watch.wrapper))


# ---------------------------------------------------------------- host callbacks


def _install_callbacks() -> None:
    debug_impl = _runtime_callback(debugging.debug_callback_impl, _debug_identity)
    # the lowered program calls debug_callback_p.impl; eager jax.debug.print calls the
    # module global directly
    _patch(debugging, "debug_callback_impl", debug_impl)
    _patch(debugging.debug_callback_p, "impl", debug_impl)
    _patch(
        callback_mod,
        "pure_callback_impl",
        _runtime_callback(callback_mod.pure_callback_impl, _flat_identity("pure_callback")),
    )
    _patch(
        callback_mod,
        "io_callback_impl",
        _runtime_callback(callback_mod.io_callback_impl, _flat_identity("io_callback")),
    )
    for module, name in (
        (jax.debug, "print"),
        (jax.debug, "callback"),
        (jax, "pure_callback"),
        (jax.experimental, "io_callback"),
    ):
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
    cells = dict(
        zip(callback.__code__.co_freevars, (c.cell_contents for c in callback.__closure__ or ()))
    )
    inner = cells.get("callback")
    if isinstance(inner, functools.partial) and inner.func.__name__ == "_format_print_callback":
        return "jax.debug.print", inner.args[0], None
    return "jax.debug.callback", inner, inner


def _flat_identity(kind: str):
    def identify(callback):
        function = getattr(callback, "callback_func", None)
        return kind, function, function

    return identify
