"""What a check kind's instrument (its worker-side half, judge/checks/base.py) is given:
the ``MeasureContext`` (the learner's function watched, the call as a function of its
array leaves for jax's transformations) and the instrument's own compiled source."""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import TYPE_CHECKING, Any

from .learner_file import _run_learner

if TYPE_CHECKING:
    from types import FrameType


class _Unmeasurable(Exception):
    """An instrument cannot give its figure here (not the learner's fault)."""


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

    return isinstance(
        value, (jax.Array, np.ndarray, np.generic, jax.core.Tracer)
    ) and not isinstance(value, np.ma.MaskedArray)


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


def _block(tree) -> None:
    import jax

    try:
        jax.block_until_ready(tree)
    except BaseException:
        pass  # non-array leaves or a learner's odd pytree: nothing to wait for


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


class MeasureContext:
    """What an instrument (a check kind's worker-side half, judge/checks/base.py) gets."""

    _NOTHING = object()

    def __init__(self, function, source_file: str | None = None, bound=None, executions=None):
        self.executions = executions  # executions.Executions, or None: not recorded
        self.raised: list[BaseException] = []  # what came out of the learner's function
        # (instrument frame, line) that jax ran the learner's function from, with what it
        # returned there: an exception jax raises on that line came out of tracing or
        # lowering the learner's function (their output included), so it is theirs
        self.traced_at: list[tuple] = []
        self.function = self._watched(function) if callable(function) else function
        self.source_file = source_file  # the file the entrypoint was loaded from
        self.bound = bound  # what the instrument's setup bound before the learner's file
        self.kept = self._NOTHING
        self._ran: list | None = None  # what the last ``called`` recorded
        self._compile_failed: list[tuple[BaseException, str]] = []  # see ``compiling``

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

    def raised_inside(self, exc: BaseException | None) -> bool:
        seen = 0
        while exc is not None and seen < 20:
            if any(exc is r for r in self.raised):
                return True
            exc, seen = exc.__cause__ or exc.__context__, seen + 1
        return False

    def _note_traced(self, result) -> None:
        """Remember the instrument line whose jax call is running the learner's function."""
        frame: FrameType | None = sys._getframe(2)
        while frame is not None and not frame.f_code.co_filename.startswith(_INSTRUMENT_FILE):
            frame = frame.f_back
        if frame is not None:
            self.traced_at.append((frame, frame.f_lineno, type(result).__name__))

    def traced_result(self, exc: BaseException) -> str | None:
        """What the learner's function returned, when ``exc`` came out of the jax call
        that traced it (jax refusing their output, ...); None when it came from the
        instrument's own code elsewhere (the judge's bug)."""
        for failed, what in self._compile_failed:
            if failed is exc:
                return what
        deepest, tb = None, exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.startswith(_INSTRUMENT_FILE):
                deepest = (tb.tb_frame, tb.tb_lineno)
            tb = tb.tb_next
        if deepest is None:
            return None
        return next(
            (
                what
                for frame, line, what in self.traced_at
                if frame is deepest[0] and line == deepest[1]
            ),
            None,
        )

    def keep(self, value) -> None:
        """Send ``value`` back with the measurement, encoded like a call's result."""
        self.kept = value

    def called(self, args, kwargs):
        """Call the learner's function for values, as the other checks do, recording
        the device programs it runs: ``(value, summary)``, the summary as
        ``Executions.summary`` gives it (None: nothing could be recorded here)."""
        if self.executions is None:  # a context made outside a worker's loop
            self.executions = _record_executions()
        if self.executions is None:
            value = self.function(*args, **kwargs)
            _block(value)
            return value, None
        with self.executions.recording() as ran:
            value = self.function(*args, **kwargs)
            _block(value)
        self._ran = ran
        return value, self.executions.summary(ran)

    def ran_as_traced(self, closed, arrays, value):
        """The compiled program the last ``called`` ran, where it is exactly the
        instrument's own trace ``closed`` of the call at ``arrays`` and ``value`` that
        program's output (``Executions.ran_as_traced``); None where not certain (then
        the instrument compiles or runs its trace itself)."""
        if self.executions is None or self._ran is None:
            return None
        try:
            return self.executions.ran_as_traced(self._ran, closed, arrays, value)
        except Exception:  # a layout this reader does not know: compile the trace
            return None

    @contextlib.contextmanager
    def compiling(self):
        """Around an instrument's compile of a trace made earlier: what jax raises there
        came out of compiling the learner's traced function (theirs), as it does on the
        line that traces it."""
        try:
            yield
        except BaseException as exc:
            if self.traced_at:
                self._compile_failed.append((exc, self.traced_at[-1][2]))
            raise

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
                raise _WrongResult(
                    f"the function returned {bad} where arrays or numbers "
                    f"belong, so the judge cannot measure it"
                )
            return result

        return fn, arrays


_INSTRUMENT_FILE = "<instrument "  # the file name instruments' code runs under


def _compile_instrument(spec: dict):
    """(the function an instrument's source defines, what its setup returned), in a
    namespace of its own."""
    name = str(spec["name"])
    namespace: dict[str, Any] = {"__name__": f"_jj_instrument_{name}"}
    exec(compile(str(spec["source"]), f"{_INSTRUMENT_FILE}{name}>", "exec"), namespace)
    setup = str(spec.get("setup") or "")
    return namespace[str(spec["function"])], (namespace[setup]() if setup else None)
