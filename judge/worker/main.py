"""Inside the worker process: load the learner's file, call it, probe it.

Started by judge/sandbox.py as ``python -s -P -B -c <bootstrap> <worker dir> <config>``
with an environment of its own; the bootstrap loads this directory as a package under a
private name and calls ``boot``.  Until ``boot`` has set the resource limits, only the standard library may be
imported: numpy and jax come after, so a memory bomb meets the limits, not a half-set
process.  This process never writes to fd 1/2 itself: those belong to the learner.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.abc
import importlib.util
import inspect
import json
import os
import resource
import signal
import sys
import time
import traceback

_PR_SET_PDEATHSIG = 1
_HIGH_FD = 200          # channel fds move here, under RLIMIT_NOFILE (256)
_MAX_MESSAGE = 2000


# ---------------------------------------------------------------- process setup

def _set_limit(res: int, soft: int, hard: int) -> None:
    _, cur_hard = resource.getrlimit(res)
    if cur_hard != resource.RLIM_INFINITY:  # a non-root process cannot raise its hard limit
        hard = min(hard, cur_hard)
        soft = min(soft, hard)
    resource.setrlimit(res, (soft, hard))


def _apply_limits(cfg: dict) -> None:
    _set_limit(resource.RLIMIT_AS, cfg["as_bytes"], cfg["as_bytes"])
    if cfg.get("cpu_s"):  # a trusted worker serving many gradings has none
        _set_limit(resource.RLIMIT_CPU, cfg["cpu_s"], cfg["cpu_s"] + 2)  # SIGXCPU before SIGKILL
    _set_limit(resource.RLIMIT_FSIZE, cfg["fsize"], cfg["fsize"])
    _set_limit(resource.RLIMIT_NOFILE, 256, 256)
    _set_limit(resource.RLIMIT_CORE, 0, 0)
    if cfg.get("nproc"):  # a uid of its own: every process and thread of it counts
        _set_limit(resource.RLIMIT_NPROC, cfg["nproc"], cfg["nproc"])
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if cfg.get("judge_pid") and os.getppid() != cfg["judge_pid"]:
        os._exit(1)  # the judge died before PDEATHSIG was armed


def _read_token(fd: int, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


def _move_fd(fd: int) -> int:
    """Move a channel fd out of the low numbers a learner is likely to scribble on."""
    import fcntl

    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD)
    os.close(fd)
    return new


class _DenyImports(importlib.abc.MetaPathFinder):
    """Makes the judge, the bank and the references unimportable by name."""

    def __init__(self, names):
        self.names = frozenset(names)

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def _hide_judge(cfg: dict) -> None:
    hidden = {os.path.realpath(p) for p in cfg.get("scrub_paths", ())}
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) not in hidden]
    if cfg.get("deny"):
        sys.meta_path.insert(0, _DenyImports(cfg["deny"]))


def boot(config_json: str) -> None:
    t0 = time.perf_counter()
    cfg = json.loads(config_json)
    _apply_limits(cfg)
    token = _read_token(cfg["cmd_fd"], 16)
    cmd_fd, reply_fd = _move_fd(cfg["cmd_fd"]), _move_fd(cfg["reply_fd"])
    from .confine import apply as confine

    confine_failed = confine(cfg.get("confine") or {})
    _hide_judge(cfg)
    try:
        # a worker that keeps the judge and the references out holds a learner's code:
        # its compiles are also counted by XLA where the judge watches
        Loop(token, cmd_fd, reply_fd, t0, cfg["lost_exit"], cfg.get("devices"),
             confine_failed, compile_log=bool(cfg.get("deny"))).run()
    except BaseException:
        # Something the learner left behind (a thread's interrupt_main, a signal handler)
        # broke the loop itself: end quietly with the code the judge reads as that.
        os._exit(cfg["lost_exit"])


# ---------------------------------------------------------------- probe fallbacks

class _NoProbe:
    def begin_call(self, label):
        pass

    def load_events(self):
        return []

    def end_call(self):
        return []

    def report(self, label, module):
        return {}


class _NoSyncs:
    def begin(self):
        pass

    def end(self):
        return []

    def paused(self):
        return contextlib.nullcontext()


class _Guarded:
    """Delegates to the probe or the sync counter; their failures never reach the learner.

    A failing method returns what the fallback object returns, and the first error is
    kept so the judge can report it.
    """

    def __init__(self, real, fallback):
        self._real, self._fallback = real, fallback
        self.error: str | None = None

    def __getattr__(self, name):
        fallback = getattr(self._fallback, name)

        def call(*args):
            try:
                return getattr(self._real, name)(*args)
            except BaseException as exc:
                self.error = self.error or f"{name}: {type(exc).__name__}: {exc}"
                return fallback(*args)
        return call


@contextlib.contextmanager
def _quietly(cm):
    """Enter and leave a probe's context manager; its failures are not the learner's."""
    try:
        cm.__enter__()
    except Exception:
        cm = None
    try:
        yield
    finally:
        if cm is not None:
            try:
                cm.__exit__(None, None, None)
            except Exception:
                pass


def _log_compiles() -> str | None:
    """Have XLA write a record of every program it compiles into a folder of the worker's
    own (before jax starts: it reads XLA_FLAGS once); the judge counts them from outside
    (judge/compile_log.py).  None when there is nowhere to write."""
    folder = os.path.join(os.environ.get("TMPDIR") or os.getcwd(), ".jj-xla")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={folder}".strip()
    return folder


_RUNS_LEARNER_CODE = ("load", "call", "calls", "measure")


_EXECUTIONS: list = []


def _record_executions():
    """The recorder of the device programs a call runs (executions.py), installed once
    per process, before any learner code; None where this jax's layout does not allow it
    (the measuring kinds then fail closed)."""
    if not _EXECUTIONS:
        try:
            from .executions import Executions
            _EXECUTIONS.append(Executions())
        except Exception:
            _EXECUTIONS.append(None)
    return _EXECUTIONS[0]


class _Unchecked:
    """Stands for the instruments' check where it could not be made (a probe_error says
    why): nothing to report, and no compile count to cross-check."""

    def changes(self) -> list:
        return []


def _report_instruments(reply, watch: list) -> None:
    """Put into a reply what changed of the instruments and how many compiles the probe
    has seen (its count is cross-checked with XLA's by the judge)."""
    if not isinstance(reply, dict):
        return
    if watch[0] is None:
        reply["tampered"] = ["the worker's check of the judge's instruments was removed"]
        return
    changes = watch[0].changes()
    if changes:
        reply["tampered"] = changes
    try:
        seen = watch[1]()
        if seen is not None:
            reply["compiles_seen"] = int(seen)
    except Exception:
        reply.setdefault("tampered", []).append("the judge's probe could not be read")


def _run_learner(function, args, kwargs):
    """Every call of the learner's function goes through here: the sync counter counts a
    pull made under this frame as the learner's, whatever file the code in between
    claims to come from."""
    return function(*args, **kwargs)


def _make_probes(path: str):
    """(probe, syncs, error): empty ones when the probe modules are missing or fail."""
    probe, syncs, errors = _NoProbe(), _NoSyncs(), []
    try:
        from .probe import Probe
        probe = _Guarded(Probe(path), _NoProbe())
    except Exception as exc:
        errors.append(f"probe unavailable: {type(exc).__name__}: {exc}")
    try:
        from .syncs import SyncCounter
        syncs = _Guarded(SyncCounter(path, entry_codes=(_run_learner.__code__,)), _NoSyncs())
    except Exception as exc:
        errors.append(f"sync counter unavailable: {type(exc).__name__}: {exc}")
    return probe, syncs, "; ".join(errors) or None


# ---------------------------------------------------------------- learner errors

def _flush_learner_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def _is_memory_error(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):  # numpy's _ArrayMemoryError included
        return True
    return type(exc).__name__.endswith("RuntimeError") and "RESOURCE_EXHAUSTED" in _text(exc)


def _text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:
        text = "(the exception's message could not be read)"
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "..."


class Learner:
    """Where the learner's file lives, and how to show its errors as the learner knows it."""

    def __init__(self, path: str, display_name: str):
        self.raw_path, self.path = path, os.path.realpath(path)
        self.display_name = display_name

    def frames(self, exc: BaseException) -> list[traceback.FrameSummary]:
        out = []
        for fs in traceback.extract_tb(exc.__traceback__):
            if os.path.realpath(fs.filename) == self.path:
                out.append(traceback.FrameSummary(self.display_name, fs.lineno, fs.name,
                                                  line=fs.line))
        return out

    def shown(self, text: str) -> str:
        """The scratch path means nothing to the learner: name their file instead."""
        return text.replace(self.path, self.display_name).replace(self.raw_path, self.display_name)

    def error(self, category: str, exc: BaseException, message: str | None = None) -> dict:
        """The error dict of the protocol, with only the learner's own frames; ``message``
        defaults to the exception's text."""
        try:
            frames = self.frames(exc)
            line = frames[-1].lineno if frames else None
            if isinstance(exc, SyntaxError):
                text = exc.msg or ""
                if os.path.realpath(exc.filename or "") == self.path:
                    line = exc.lineno
            else:
                text = _text(exc)
            tb = "".join(traceback.format_list(frames))
            tb = ("Traceback (most recent call last):\n" + tb if tb else "") + "".join(
                traceback.format_exception_only(type(exc), exc))
        except MemoryError:
            line, text, tb = None, "", ""
        finally:
            traceback.clear_frames(exc.__traceback__)  # let a memory bomb's garbage go
        return {"category": category, "type": type(exc).__name__,
                "message": self.shown(text if message is None else message),
                "traceback": self.shown(tb)[:8 * _MAX_MESSAGE], "line": line}


def _exit_words(exc: SystemExit) -> str:
    code = exc.code
    return f"sys.exit({code!r})" if code is not None else "sys.exit()"


# ---------------------------------------------------------------- arguments and results

def _to_argument(value, devices=None):
    """Decoded wire values -> what the learner's function receives (``devices``: the
    worker's ``devices.Devices``, for arguments placed on a mesh)."""
    from .wire import Leaf

    if isinstance(value, Leaf):
        return _leaf_value(value, devices)
    if type(value) is list:
        return [_to_argument(v, devices) for v in value]
    if type(value) is tuple:
        return tuple(_to_argument(v, devices) for v in value)
    if type(value) is dict:
        return {k: _to_argument(v, devices) for k, v in value.items()}
    return value


def _leaf_value(leaf, devices=None):
    if leaf.kind == "npscalar":
        return leaf.array[()]
    if leaf.kind == "numpy":
        return leaf.array
    # from a Python scalar: weakly typed
    value = leaf.array.item() if leaf.weak and leaf.array.ndim == 0 else leaf.array
    if leaf.sharding is not None:
        if devices is None:
            raise RuntimeError("an argument placed on a mesh, in a worker started without devices")
        return devices.place(value, leaf.sharding)
    import jax

    if leaf.kind == "key":     # what jax.random.key(seed) makes, from its raw data
        return jax.random.wrap_key_data(jax.device_put(leaf.array), impl="threefry2x32")

    # device_put, not jnp.asarray: the same array (dtype, weak type, placement), but
    # asarray compiles a conversion for every new shape, on the learner's clock
    return jax.device_put(value)


class _Arguments:
    """A call's arguments as the learner's function receives them, and what they were
    before the call: JAX code is pure, so a function that changes its caller's NumPy
    array or list in place (``x -= x[0]``) gives a wrong answer, even when the value it
    returns is right."""

    def __init__(self, args: list, kwargs: dict, names: list[str]):
        self.args, self.kwargs = args, kwargs
        self.names = [names[i] if i < len(names) else f"argument {i + 1}"
                      for i in range(len(self.args))]
        self._before = [_snapshot(v) for v in self.args] + [_snapshot(v) for v in self.kwargs.values()]

    def changed(self) -> str | None:
        """How the call changed an argument in place, in a learner's words; None if not."""
        values = self.args + list(self.kwargs.values())
        names = self.names + list(self.kwargs)
        for name, value, before in zip(names, values, self._before):
            what = _change(value, before, name)
            if what:
                return (f"your function changed its argument {what}. The caller's data is "
                        f"corrupted even when the value returned is right: JAX code is pure, "
                        f"so compute new values (`x = x - x[0]`, not `x -= x[0]`; "
                        f"`sorted(x)`, not `x.sort()`)")
        return None


def _snapshot(value, depth: int = 0):
    """What a mutable argument holds now (None for what cannot change in place)."""
    import numpy as np

    if depth > 50:
        return None
    if isinstance(value, np.ndarray):
        return ("array", value.copy())
    if type(value) in (list, tuple, dict):
        items = list(value.items()) if type(value) is dict else list(enumerate(value))
        return (type(value), [(k, v, _snapshot(v, depth + 1)) for k, v in items])
    return None


def _same_item(a, b) -> bool:
    if isinstance(b, (bool, int, float, complex, str, type(None))):
        return type(a) is type(b) and (a == b or (a != a and b != b))
    return a is b


def _change(value, before, path: str) -> str | None:
    import numpy as np

    if before is None:
        return None
    if before[0] == "array":
        old = before[1]
        if value.shape != old.shape or value.dtype != old.dtype:
            return (f"`{path}` (a NumPy array) in place: it was {old.dtype}{list(old.shape)} "
                    f"before the call and {value.dtype}{list(value.shape)} after")
        same = (value == old) | ((value != value) & (old != old))
        if not np.all(same):
            idx = tuple(int(i) for i in np.argwhere(~np.asarray(same))[0])
            where = f"[{', '.join(map(str, idx))}]" if idx else ""
            return (f"`{path}` (a NumPy array) in place: {path}{where} was {old[idx].item()!r} "
                    f"before the call and {value[idx].item()!r} after")
        return None
    kind, items = before
    noun = {list: "a list", tuple: "a tuple", dict: "a dict"}[kind]
    if kind is dict:
        if list(value.keys()) != [k for k, _, _ in items]:
            return f"`{path}` ({noun}) in place: its keys were {[k for k, _, _ in items]} and are {list(value)} after"
    elif len(value) != len(items):
        return f"`{path}` ({noun}) in place: it had {len(items)} items and has {len(value)} after"
    for key, item, sub in items:
        now = value[key]
        inner = f"{path}[{key!r}]"
        if not _same_item(now, item):
            if isinstance(item, (bool, int, float, complex, str, type(None))):
                return f"`{path}` ({noun}) in place: {inner} was {item!r} before the call and {now!r} after"
            return f"`{path}` ({noun}) in place: {inner} was replaced"
        what = _change(now, sub, inner)
        if what:
            return what
    return None


def _block(tree) -> None:
    import jax

    try:
        jax.block_until_ready(tree)
    except BaseException:
        pass  # non-array leaves or a learner's odd pytree: nothing to wait for


# ---------------------------------------------------------------- check kinds' instruments

class _Unmeasurable(Exception):
    """An instrument cannot give its figure here (not the learner's fault)."""


class _LearnersFault(Exception):
    """The learner's code failed outside their function (``error``: the protocol's dict)."""

    def __init__(self, error: dict):
        super().__init__(error.get("message", ""))
        self.error = error


class _WrongResult(Exception):
    """What the learner's function returned cannot be measured (a string where arrays
    belong, ...): the learner's wrong answer, not the instrument's failure."""


class _Slot:
    """Where the n-th array leaf of a call's arguments goes back (see ``traceable``)."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def _is_array(value) -> bool:
    """A JAX or NumPy array, a NumPy scalar, or a tracer standing for one: not anything
    with a shape and a dtype (a jax.ShapeDtypeStruct, a masked array), which jax's
    transformations refuse as an output."""
    import jax
    import numpy as np

    return isinstance(value, (jax.Array, np.ndarray, np.generic, jax.core.Tracer)) \
        and not isinstance(value, np.ma.MaskedArray)


def _not_traceable(result, depth: int = 0) -> str | None:
    """What in ``result`` jax's transformations cannot take as an output, or None."""
    if depth > 50:
        return "a structure nested more than 50 deep"
    if result is None or _is_array(result) or isinstance(result, (int, float, complex)):
        return None
    if isinstance(result, (list, tuple)):
        return next(filter(None, (_not_traceable(v, depth + 1) for v in result)), None)
    if isinstance(result, dict):
        return next(filter(None, (_not_traceable(v, depth + 1) for v in result.values())), None)
    return f"a {type(result).__name__}"


class MeasureContext:
    """What an instrument (a check kind's worker-side half, judge/checks/base.py) gets."""

    _NOTHING = object()

    def __init__(self, function, source_file: str | None = None, bound=None, executions=None):
        self.executions = executions    # executions.Executions, or None: not recorded
        self.raised: list[BaseException] = []   # what came out of the learner's function
        # (instrument frame, line) that jax ran the learner's function from, with what it
        # returned there: an exception jax raises on that line came out of tracing or
        # lowering the learner's function (their output included), so it is theirs
        self.traced_at: list[tuple] = []
        self.function = self._watched(function) if callable(function) else function
        self.source_file = source_file      # the file the entrypoint was loaded from
        self.bound = bound          # what the instrument's setup bound before the learner's file
        self.kept = self._NOTHING

    def _watched(self, function):
        """The function, noting what it raises: an exception that came out of it is the
        learner's, whatever file its code says it is from (exec can name any)."""
        @functools.wraps(function)
        def watched(*args, **kwargs):
            try:
                return _run_learner(function, args, kwargs)
            except BaseException as exc:
                self.raised.append(exc)
                raise
        return watched

    def raised_inside(self, exc: BaseException) -> bool:
        seen = 0
        while exc is not None and seen < 20:
            if any(exc is r for r in self.raised):
                return True
            exc, seen = exc.__cause__ or exc.__context__, seen + 1
        return False

    def _note_traced(self, result) -> None:
        """Remember the instrument line whose jax call is running the learner's function."""
        frame = sys._getframe(2)
        while frame is not None and not frame.f_code.co_filename.startswith(_INSTRUMENT_FILE):
            frame = frame.f_back
        if frame is not None:
            self.traced_at.append((frame, frame.f_lineno, type(result).__name__))

    def traced_result(self, exc: BaseException) -> str | None:
        """What the learner's function returned, when ``exc`` came out of the jax call
        that traced it (jax refusing their output, ...); None when it came from the
        instrument's own code elsewhere (the judge's bug)."""
        deepest, tb = None, exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.startswith(_INSTRUMENT_FILE):
                deepest = (tb.tb_frame, tb.tb_lineno)
            tb = tb.tb_next
        if deepest is None:
            return None
        return next((what for frame, line, what in self.traced_at
                     if frame is deepest[0] and line == deepest[1]), None)

    def keep(self, value) -> None:
        """Send ``value`` back with the measurement, encoded like a call's result."""
        self.kept = value

    def called(self, args, kwargs):
        """Call the learner's function for values, as the other checks do, recording
        the device programs it runs: ``(value, summary)``, the summary as
        ``Executions.summary`` gives it (None: nothing could be recorded here)."""
        if self.executions is None:     # a context made outside a worker's loop
            self.executions = _record_executions()
        if self.executions is None:
            value = self.function(*args, **kwargs)
            _block(value)
            return value, None
        with self.executions.recording() as ran:
            value = self.function(*args, **kwargs)
            _block(value)
        return value, self.executions.summary(ran)

    def unmeasurable(self, why: str):
        raise _Unmeasurable(str(why))

    def wrong(self, why: str):
        """The learner's function gave something that cannot be measured: their wrong
        answer (verdict wrong_answer), in ``why``'s words."""
        raise _WrongResult(str(why))

    def traceable(self, args, kwargs):
        """``fn, arrays``: the call as a function of its array leaves alone, for jax's
        transformations (``jax.make_jaxpr(fn)(*arrays)``, ``jax.jit(fn).lower(*arrays)``,
        ``jax.vjp(fn, *arrays)``).  Every other leaf (a Python number, a string, None)
        stays as the call gives it, static as jit would need it.  What ``fn`` returns is
        checked first: anything but arrays, numbers and None in lists, tuples and dicts
        is the learner's wrong answer (``wrong``), never a jax error in the instrument."""
        arrays: list = []

        def hollow(value, depth=0):
            if depth > 50:
                return value
            if type(value) in (list, tuple):
                return type(value)(hollow(v, depth + 1) for v in value)
            if type(value) is dict:
                return {k: hollow(v, depth + 1) for k, v in value.items()}
            if _is_array(value):
                arrays.append(value)
                return _Slot(len(arrays) - 1)
            return value

        def fill(value, values):
            if type(value) in (list, tuple):
                return type(value)(fill(v, values) for v in value)
            if type(value) is dict:
                return {k: fill(v, values) for k, v in value.items()}
            return values[value.index] if isinstance(value, _Slot) else value

        skeleton_args, skeleton_kwargs = hollow(list(args)), hollow(dict(kwargs))
        function = self.function

        # wraps: jax's messages then name the learner's function and file, not this one
        @functools.wraps(function, assigned=("__name__", "__qualname__", "__doc__"), updated=())
        def fn(*values):
            result = function(*fill(skeleton_args, values), **fill(skeleton_kwargs, values))
            self._note_traced(result)
            bad = _not_traceable(result)
            if bad is not None:
                raise _WrongResult(f"the function returned {bad} where arrays or numbers "
                                   f"belong, so the judge cannot measure it")
            return result
        return fn, arrays


_INSTRUMENT_FILE = "<instrument "   # the file name instruments' code runs under


def _compile_instrument(spec: dict):
    """(the function an instrument's source defines, what its setup returned), in a
    namespace of its own."""
    name = str(spec["name"])
    namespace = {"__name__": f"_jj_instrument_{name}"}
    exec(compile(str(spec["source"]), f"{_INSTRUMENT_FILE}{name}>", "exec"), namespace)
    setup = str(spec.get("setup") or "")
    return namespace[str(spec["function"])], (namespace[setup]() if setup else None)


# ---------------------------------------------------------------- the loop

class Loop:
    def __init__(self, token: bytes, cmd_fd: int, reply_fd: int, t0: float, lost_exit: int,
                 devices: int | None = None, confine_failed: list | None = None,
                 compile_log: bool = False):
        self.token, self.cmd_fd, self.reply_fd, self.t0 = token, cmd_fd, reply_fd, t0
        self.lost_exit = lost_exit  # exit code telling the judge the channel broke
        self.device_count = devices  # a task's `devices: N`; None: jax's own default
        self.devices = None          # devices.Devices once warmed up, for such a task
        self.confine_failed = confine_failed or []
        self.pid = os.getpid()
        self.learner_ran = False    # once the learner's file runs, a broken worker is theirs
        self.module = self.entry = self.learner = None
        self.params: list[str] = []          # the entrypoint's parameter names
        self.probe, self.syncs = _NoProbe(), _NoSyncs()
        self.probe_error: str | None = None
        self.instruments: dict = {}
        self.compile_log: str | None = "" if compile_log else None   # XLA's record, once set up
        self.dump_guard = None      # (holder, attribute, wrapper) keeping XLA's record in place
        self.executions = None      # executions.Executions: the programs each call runs
        # [the instruments' check, the probe's compile count], set when the probes are made
        self._watch: list = [None, None]

    def run(self) -> None:
        from . import wire

        ready = self._warm_up()
        self._send(0, ready, [])
        seq = 1
        # bound now, before any learner code runs: replacing the loop's methods later
        # does not change what this loop calls after every request
        handle, send, watch = self._handle, self._send, self._watch
        armed = False
        while True:
            try:
                header, blobs = wire.read_frame(self.cmd_fd, self.token, seq)
            except EOFError:
                os._exit(0)  # the judge closed the channel: nobody to answer
            except (OSError, wire.WireError):
                os._exit(self.lost_exit)  # the learner's code broke it
            # a probed load installs the instruments before the learner's file runs: from
            # then on they are checked after every request that runs the learner's code
            armed = armed or (header.get("op") == "load" and bool(header.get("probe")))
            reply, out_blobs = handle(header, blobs)
            if armed and header.get("op") in _RUNS_LEARNER_CODE:
                _report_instruments(reply, watch)
            send(seq, reply, out_blobs)
            if header.get("op") == "exit":
                _flush_learner_output()
                os._exit(0)
            seq += 1

    def _warm_up(self) -> dict:
        """Import numpy and jax now, while the judge computes its references."""
        try:
            flags = os.environ.get("XLA_FLAGS")
            if self.compile_log is not None:
                self.compile_log = _log_compiles()
            import jax
            import jax.numpy  # noqa: F401

            if self.device_count:   # set before jax's first operation
                from .devices import Devices
                self.devices = Devices(jax, int(self.device_count))
            found = jax.devices()
            self.executions = _record_executions()
            if self.compile_log:    # a learner's xla_dump_* option must not move the record
                try:
                    from .xla_records import pin_dumps
                    self.dump_guard = pin_dumps()
                except Exception:   # a jax layout change: the cross-check still counts XLA's
                    self.dump_guard = None
            # XLA read its flags once, now: a process the learner's code starts must not
            # write into the judge's compile log
            if flags is None:
                os.environ.pop("XLA_FLAGS", None)
            else:
                os.environ["XLA_FLAGS"] = flags
        except BaseException as exc:
            return {"op": "ready", "ok": False,
                    "error": {"type": type(exc).__name__, "message": _text(exc)}}
        return {"op": "ready", "ok": True, "pid": os.getpid(), "jax": jax.__version__,
                "boot_s": time.perf_counter() - self.t0, "confine_failed": self.confine_failed,
                # said before any learner code runs: the judge opens it now (compile_log)
                "compile_log": self.compile_log or None,
                "devices": {"count": len(found), "platform": found[0].platform}}

    def _send(self, seq: int, reply: dict, blobs: list[bytes]) -> None:
        if os.getpid() != self.pid:
            # a copy the learner's code forked, unwound back into the loop: only the
            # worker itself answers the judge
            os._exit(0)
        data = self._pack(seq, reply, blobs)
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.reply_fd, view)
            except OSError:
                os._exit(self.lost_exit)
            view = view[n:]

    def _pack(self, seq: int, reply: dict, blobs: list[bytes]) -> bytes:
        """Pack the reply; without the probe data, or as a bare error, if it cannot be sent."""
        from . import wire

        try:
            return wire.pack(self.token, seq, reply, blobs)
        except (TypeError, ValueError, RecursionError):  # WireError is a ValueError
            pass
        stripped = {k: v for k, v in reply.items() if k not in ("traces", "syncs", "report")}
        stripped["probe_error"] = "probe data could not be encoded"
        try:
            return wire.pack(self.token, seq, stripped, blobs)
        except (TypeError, ValueError, RecursionError):
            return wire.pack(self.token, seq, self._broken("the reply could not be encoded"))

    def _handle(self, header: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        op = header.get("op")
        handler = {"load": self._load, "call": self._call, "calls": self._calls,
                   "measure": self._measure, "report": self._report,
                   "exit": lambda h, b: ({"ok": True}, [])}.get(op)
        if handler is None:
            return self._broken(f"unknown op {op!r}"), []
        try:
            return handler(header, blobs)
        except BaseException as exc:  # the worker's own code failed
            return self._broken(f"{type(exc).__name__}: {_text(exc)}"), []

    def _broken(self, message: str) -> dict:
        """The worker's own failure: the judge's before any learner code ran; after,
        the learner's (it may have exhausted descriptors or patched the worker)."""
        if not self.learner_ran:
            return _judge_error(message)
        return {"ok": False, "error": {
            "category": "broken", "type": "WorkerBroken", "traceback": "", "line": None,
            "message": f"the worker failed after your code ran ({message}): did the code "
                       "exhaust file descriptors or memory, or change the judge's internals?"}}

    # -- load

    def _load(self, header: dict, blobs) -> tuple[dict, list[bytes]]:
        path, name = header["path"], header["entrypoint"]
        self.learner = Learner(path, header.get("display_name") or os.path.basename(path))
        if header.get("x64"):       # a reference computed in float64 (judge validate)
            import jax

            jax.config.update("jax_enable_x64", True)
        if header.get("probe"):
            self.probe, self.syncs, self.probe_error = _make_probes(path)
        # before the learner's file runs, so they hold jax's own functions
        self.instruments = {str(spec["name"]): _compile_instrument(spec)
                            for spec in header.get("instruments", [])}
        if header.get("probe"):
            self._arm(self.probe, self.syncs)
        self.learner_ran = True
        error = self._import(path)
        _flush_learner_output()
        if error is None:
            error = self._find_entrypoint(name)
        if error is not None:
            return {"ok": False, "error": error}, []
        # what the file traced and compiled while it loaded (ahead-of-time programs,
        # warm-up calls) counts with what its calls do
        return {"ok": True, "params": _param_names(self.entry),
                "jitted": _jitted_names(self.module), "probe_error": self._probe_error(),
                "compile_log": self.compile_log or None,
                "traces": self.probe.load_events()}, []

    def _arm(self, probe, syncs) -> None:
        """Record the instruments as installed, before the learner's file runs."""
        from .integrity import Instruments

        real_probe = getattr(probe, "_real", None)
        real_syncs = getattr(syncs, "_real", None)
        guards = {"the worker's probe": (self, "probe", probe),
                  "the worker's sync counter": (self, "syncs", syncs)}
        if self.dump_guard is not None:
            guards["the judge's keeper of XLA's compile records"] = self.dump_guard
        for n, guard in enumerate(getattr(self.executions, "guards", ())):
            guards[f"the judge's recorder of the programs your calls run ({n + 1})"] = guard
        try:
            # what each instrument's setup bound (jax's functions): swapped, it measures
            # whatever the learner's code put there
            bound = {f"the judge's {name} instrument": kept for name, (_, kept) in
                     self.instruments.items() if isinstance(kept, dict)}
            self._watch[0] = Instruments(real_probe, real_syncs, guards, bound)
            self._watch[1] = real_probe.compiles_seen if real_probe is not None else (lambda: None)
        except Exception as exc:     # a jax layout change: the check is missing, not the learner's fault
            self.probe_error = (self.probe_error or "") + f" instruments unchecked: {type(exc).__name__}: {exc}"
            self._watch[0], self._watch[1] = _Unchecked(), (lambda: None)

    def _import(self, path: str) -> dict | None:
        spec = importlib.util.spec_from_file_location("submission", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["submission"] = module
        try:
            spec.loader.exec_module(module)
        except SystemExit as exc:
            return self.learner.error("invalid_submission", exc,
                                      f"the file called {_exit_words(exc)} while being imported")
        except BaseException as exc:
            if _is_memory_error(exc):
                return self.learner.error("memory", exc)
            err = self.learner.error("invalid_submission", exc)
            at = f" (line {err['line']})" if err["line"] else ""
            err["message"] = f"importing the file failed: {err['type']}: {err['message']}{at}"
            return err
        self.module = module
        return None

    def _find_entrypoint(self, name: str) -> dict | None:
        shown = self.learner.display_name
        try:
            entry = getattr(self.module, name)
        except BaseException:
            import difflib

            defined = [k for k, v in vars(self.module).items()
                       if callable(v) and not k.startswith("_") and getattr(v, "__module__", None) == self.module.__name__]
            close = difflib.get_close_matches(name, defined, n=1, cutoff=0.6)
            hint = f" (it defines {close[0]!r}: a typo?)" if close else \
                (f" (it defines: {', '.join(defined[:5])})" if defined else "")
            return _invalid(f"{shown} defines no function named {name!r}{hint}")
        if not callable(entry):
            return _invalid(f"{name!r} in {shown} is a {type(entry).__name__}, not a function")
        self.entry = entry
        self.params = _param_names(entry)
        return None

    # -- call

    def _calls(self, header: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        """Several calls, one reply: the reference's values for a batch of inputs."""
        out_blobs: list[bytes] = []
        replies = [self._call(call, blobs, out_blobs)[0] for call in header.get("calls", [])]
        return {"ok": True, "replies": replies}, out_blobs

    def _call(self, header: dict, blobs: list[bytes],
              out_blobs: list[bytes] | None = None) -> tuple[dict, list[bytes]]:
        if self.entry is None:
            return self._broken("call before a successful load"), []
        try:
            arguments = _Arguments(*self._arguments(header, blobs), self.params)
        except _LearnersFault as fault:
            return {"ok": False, "error": fault.error}, []
        probe, syncs = ((self.probe, self.syncs) if header.get("probe", True)
                        else (_NoProbe(), _NoSyncs()))
        probe.begin_call(header.get("label", "call"))
        syncs.begin()
        out_blobs = [] if out_blobs is None else out_blobs
        start = len(out_blobs)
        t = time.perf_counter()
        recording = (self.executions.recording() if self.executions is not None
                     else contextlib.nullcontext(None))
        try:
            with recording as ran:
                result = _run_learner(self.entry, arguments.args, arguments.kwargs)
                with _quietly(syncs.paused()):
                    _block(result)
            elapsed = time.perf_counter() - t
        except BaseException as exc:
            reply = {"ok": False, "error": self._call_error(exc)}
        else:
            reply = self._encode_result(result, out_blobs, syncs)
            reply["elapsed_s"] = elapsed
            if ran is not None:     # which inputs a program on the device read
                reply["measured"] = {"executed": self.executions.of_call(
                    ran, [arguments.args, arguments.kwargs], result)}
        _flush_learner_output()
        reply["traces"] = probe.end_call()
        reply["syncs"] = syncs.end()
        self._unless_changed(arguments, reply, out_blobs, start)
        return reply, out_blobs

    def _unless_changed(self, arguments: "_Arguments", reply: dict, out_blobs: list,
                        start: int) -> None:
        """A call that changed an argument in place answered wrongly, whatever it returned."""
        if not reply.get("ok"):
            return
        try:
            changed = arguments.changed()
        except BaseException as exc:      # an argument the learner turned into something odd
            changed = f"your function changed its arguments in place ({type(exc).__name__})"
        if changed:
            del out_blobs[start:]
            reply.pop("result", None)
            reply.update(ok=False, error={"category": "wrong", "type": "WrongResult",
                                          "message": changed, "traceback": "", "line": None})

    def _arguments(self, header: dict, blobs: list[bytes]) -> tuple[list, dict]:
        """The call's arguments as the learner's function receives them.  Making them
        runs jax code (device_put, placing on a mesh) that the learner's file may have
        changed: a failure that passes through their code is theirs."""
        from . import wire

        args = [wire.decode(a, blobs) for a in header.get("args", [])]
        kwargs = {k: wire.decode(v, blobs) for k, v in header.get("kwargs", {}).items()}
        try:
            return ([_to_argument(a, self.devices) for a in args],
                    {k: _to_argument(v, self.devices) for k, v in kwargs.items()})
        except BaseException as exc:
            replaced = self.devices.tampered() if self.devices is not None else []
            if self.learner is None or not (self.learner.frames(exc) or replaced):
                raise
            error = self._call_error(exc)
            what = f" ({', '.join(replaced[:3])})" if replaced else ""
            error["message"] = (f"passing the arguments failed in code of yours that replaced "
                                f"part of jax{what}: {error['message']}")
            raise _LearnersFault(error) from None

    def _measure(self, header: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        """A check kind's instrument at one input: its measurement (JSON), and the value
        it kept, encoded like a call's result."""
        instrument, bound = self.instruments.get(header.get("instrument"), (None, None))
        if self.entry is None or instrument is None:
            return _judge_error(f"no instrument {header.get('instrument')!r} loaded"), []
        try:
            arguments = _Arguments(*self._arguments(header, blobs), self.params)
        except _LearnersFault as fault:
            return {"ok": False, "error": fault.error}, []
        args, kwargs = arguments.args, arguments.kwargs
        ctx = MeasureContext(self.entry, self.learner.path if self.learner else None, bound,
                             self.executions)
        self.probe.begin_call(header.get("label", "measure"))
        self.syncs.begin()
        out_blobs: list[bytes] = []
        try:
            measured = instrument(ctx, args, kwargs, header.get("options") or {})
            reply = {"ok": True, "measured": measured}
            if ctx.kept is not MeasureContext._NOTHING:
                encoded = self._encode_result(ctx.kept, out_blobs, self.syncs)
                reply = dict(encoded, measured=measured) if encoded["ok"] else encoded
        except _Unmeasurable as exc:
            reply = {"ok": False, "error": {"category": "unmeasurable", "type": "Unmeasurable",
                                            "message": _text(exc), "traceback": "", "line": None}}
        except _WrongResult as exc:
            reply = {"ok": False, "error": {"category": "wrong", "type": "WrongResult",
                                            "message": _text(exc), "traceback": "", "line": None}}
        except BaseException as exc:
            # the learner's code raised inside the instrument (a tracer turned into a
            # bool, ...): theirs; an instrument's own failure is the judge's
            learners = self.learner.frames(exc) or ctx.raised_inside(exc)
            returned = None if learners else ctx.traced_result(exc)
            if learners:
                reply = {"ok": False, "error": self._call_error(exc)}
            elif returned is not None:
                # jax failed on the learner's function or on what it returned, inside the
                # instrument's call that traced it: the learner's, in their words
                error = self._call_error(exc)
                error["message"] = (f"your function returned a {returned}, which jax could not "
                                    f"trace or compile: {error['message']}")
                reply = {"ok": False, "error": error}
            else:
                reply = _judge_error(f"instrument {header.get('instrument')}: "
                                     f"{type(exc).__name__}: {_text(exc)}")
        _flush_learner_output()
        reply["traces"] = self.probe.end_call()
        reply["syncs"] = self.syncs.end()
        self._unless_changed(arguments, reply, out_blobs, 0)
        return reply, out_blobs

    def _encode_result(self, result, blobs: list[bytes], syncs) -> dict:
        """The result as a wire node.  Encoding may run the learner's code (a repr, an
        array conversion) and fail like any call."""
        from . import wire

        start = len(blobs)
        try:
            layout_of = self.devices.layout if self.devices is not None else None
            with _quietly(syncs.paused()):
                return {"ok": True, "result": wire.encode(result, blobs, layout_of=layout_of)}
        except BaseException as exc:
            del blobs[start:]
            error = self._call_error(exc)
            error["message"] = f"the result could not be sent to the judge: {error['message']}"
            return {"ok": False, "error": error}

    def _call_error(self, exc: BaseException) -> dict:
        if isinstance(exc, SystemExit):
            return self.learner.error("exit", exc, f"called {_exit_words(exc)}")
        if _is_memory_error(exc):
            return self.learner.error("memory", exc)
        return self.learner.error("exception", exc)

    # -- report

    def _report(self, header: dict, blobs) -> tuple[dict, list[bytes]]:
        report = self.probe.report(header.get("label", "call"), self.module)
        return {"ok": True, "report": report, "probe_error": self._probe_error()}, []

    def _probe_error(self) -> str | None:
        """Why probe data is missing or partial, for the judge's log; None when all is well."""
        return self.probe_error or getattr(self.probe, "error", None) or getattr(
            self.syncs, "error", None)


def _invalid(message: str) -> dict:
    return {"category": "invalid_submission", "type": "InvalidSubmission", "message": message,
            "traceback": "", "line": None}


def _judge_error(message: str) -> dict:
    return {"ok": False, "error": {"category": "judge", "type": "WorkerError", "message": message,
                                   "traceback": "", "line": None}}


def _param_names(fn) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except BaseException:
        return []


def _jitted_names(module) -> list[str]:
    import jax

    jit_type = type(jax.jit(lambda: 0))
    try:
        return sorted(k for k, v in vars(module).items()
                      if isinstance(k, str) and isinstance(v, jit_type))
    except BaseException:  # a learner's object with a hostile __class__
        return []
