"""``cost``: how much work the learner's compiled program does, as XLA counts it.

At each call of a script the worker compiles the learner's function with
``jax.jit(...).lower(...).compile()`` (Python numbers static) and sends XLA's
``cost_analysis()`` (``flops`` compared, ``bytes accessed`` reported) with the compiled
program's HLO text.  jax calls cost analysis "not a reliably programmable API": the
figures are compared only with the reference's, measured the same way in the same kind
of worker, and a reference that yields no figure makes the task's check a judge error
(``judge validate`` fails it), never the learner's failure.  The compiled program is run
and its value compared with the reference's, so the program measured is the one that
computes the answer.

XLA's cost analysis counts a loop's body once, however often it runs: a ``fori_loop``
of 64 one-row products reads as one row.  The judge reads the HLO itself (``hlo.work``):
the flops compared are XLA's, plus what each loop's body adds on its trips beyond the
first, where XLA knows the trip count (``known_trip_count``: ``fori_loop`` and ``scan``
with static bounds, a ``while_loop`` XLA could count), nested loops multiplied through.
Where XLA does not know a loop's trip count the figure is unknown: against a reference
without such a loop that fails (the learner's program could run its body any number of
times); where the reference has one too, the figures are compared with bodies once.

Host callbacks (``jax.pure_callback``, ``io_callback``, ``jax.debug.callback``) are
work done off the device, which no cost analysis counts: a program that makes one the
reference does not fails, with the callback named and its line.  ``jax.debug.print`` is
not counted against the learner: it only formats what it prints, and cannot carry the
answer (``callbacks.py``; docs/authoring.md).

What is compiled is the judge's own trace of the function; a function can tell a trace
from a call (``isinstance(x, jax.core.Tracer)``) and run other work when called.  So the
instrument also calls the function for values, as the value checks do, and the worker
records the device programs that call runs (``judge/worker/executions.py``: jitted
programs and eager operations alike).  The figure compared is the larger of the two:
what the trace compiles, and what the call ran (each program's flops, loops counted per
trip as above, times the number of times it ran).  Where the programs a call ran could
not be recorded, the figure is unknown and the check fails closed.  Where the call ran
exactly the traced program (one program, compiled from the very jaxpr of the trace, on
the call's own arrays, its outputs the call's value: ``Executions.ran_as_traced``), that
program is the one measured and its value the one kept: the call compiles it once, and
the trace is not compiled again.

Every call made for values must also read on the device each input the reference's
call read (the off-device rule, ``on_device.py``): an answer computed with NumPy and
handed back with ``jnp.asarray`` runs programs of almost no work.

Budget: the learner's flops at most the reference's times ``factor`` (default 1).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..verdicts import Status, Verdict
from . import callbacks as host
from .base import ScriptMeasureCheck, check_kind, instrument
from .hlo import made, read_hlo, work
from .outcome import plural

if TYPE_CHECKING:
    from ..bank import FieldReader, Task
    from ..report import CheckResult
    from .base import GradingView, Measured, ValueCall

MAX_HLO_CHARS = 3 << 20
RAN_MARGIN = 1.05  # what the calls ran replaces the trace's figure above this ratio
# a value call (a property check's, a script's run) fails above the reference's figure on
# the same input times factor times this, plus this many flops (eager operations
# around a right answer, XLA's counts of two right programs of the same work)
VALUE_MARGIN, VALUE_SLACK = 1.25, 4096.0


def bind_compiling():  # type: ignore[no-untyped-def]  # shipped
    """Runs in the worker before the learner's file: jax's own functions for compiling
    and reading what was compiled, whatever the learner's code replaces later."""
    import os

    import jax
    import jax.extend.core

    return {
        "jit": jax.jit,
        "lower": jax.stages.Traced.lower,
        "jaxpr_of": jax.stages.Traced.jaxpr.fget,
        "compile": jax.stages.Lowered.compile,
        "as_text": jax.stages.Compiled.as_text,
        "cost_analysis": jax.stages.Compiled.cost_analysis,
        "make_jaxpr": jax.make_jaxpr,
        "jaxprs_in_params": jax.extend.core.jaxprs_in_params,
        "realpath": os.path.realpath,
    }


def measure_cost(ctx, args, kwargs, options):  # type: ignore[no-untyped-def]  # shipped
    """Runs in the worker: XLA's cost analysis of the compiled call, the compiled
    program's HLO text (its loops and host callbacks are read by the judge), and the
    compiled program's value (kept).

    The function is traced, then called for values as the other checks call it (the
    programs it ran recorded); where that call ran exactly the traced program
    (``ctx.ran_as_traced``), the program it compiled is the one measured and its value
    the one kept, so the call compiles once; otherwise the trace is compiled and run."""
    bound = ctx.bound
    fn, arrays = ctx.traceable(args, kwargs)
    traced = bound["jit"](fn).trace(*arrays)
    # the function called for values, as the other checks call it: the programs it ran
    value, executed = ctx.called(args, kwargs)
    ran = ctx.ran_as_traced(bound["jaxpr_of"](traced), arrays, value)
    if ran is not None:
        analysis, text = ran.cost_analysis(), ran.get_hlo_text()
    else:
        with ctx.compiling():
            compiled = bound["compile"](bound["lower"](traced))
        analysis, text = bound["cost_analysis"](compiled), bound["as_text"](compiled)
    if isinstance(analysis, (list, tuple)):  # one per device in older jax
        analysis = analysis[0] if analysis else None
    if not isinstance(analysis, dict) or not ("flops" in analysis or "bytes accessed" in analysis):
        ctx.unmeasurable("XLA's cost analysis gives no flops for this program on this backend")
    text = text or ""
    too_large = len(text) if len(text) > int(options.get("max_chars", 3 << 20)) else 0
    ctx.keep(value if ran is not None else compiled(*arrays))
    lines = (
        callback_lines(bound, fn, arrays, ctx.source_file, options.get("callbacks", ()))  # type: ignore[name-defined]  # shipped beside it
        if "callback" in text
        else {}
    )
    return {
        "executed": executed,
        "flops": float(analysis.get("flops", 0.0)),
        "bytes": float(analysis.get("bytes accessed", 0.0)),
        "hlo": "" if too_large else text,
        "too_large": too_large,
        "source": str(ctx.source_file or "").rsplit("/", 1)[-1],
        "callback_lines": lines,
    }


def executed_flops(executed: Any, source: str = "") -> tuple[float, int] | None:
    """(flops, executions) of the programs a call ran, each loop body counted per trip
    where its HLO was sent; None when nothing was recorded or a program's flops are
    unknown."""
    if not isinstance(executed, dict) or executed.get("flops") is None:
        return None
    total = float(executed["flops"])
    for program in executed.get("programs") or ():
        if program.get("hlo"):
            total += int(program.get("times", 1)) * _extra_trips(str(program["hlo"]), source)
    return total, int(executed.get("executions", 0))


@functools.lru_cache(maxsize=256)
def _extra_trips(text: str, source: str) -> float:
    """The flops a program's loops add on their trips beyond the first (read once per
    program text: every value call of a grading sends the same few)."""
    done = work(read_hlo(text), source)
    return max(done.flops - done.flops_once, 0.0)


def _num(x: float) -> str:
    return f"{x:,.0f}"


class Figures:
    """One measured program: XLA's figures, and what reading its HLO adds."""

    def __init__(self, measured: dict[str, Any]):
        program = read_hlo(str(measured["hlo"]))
        source = str(measured.get("source", ""))
        done = work(program, source)
        self.xla_flops = float(measured["flops"])
        self.bytes = float(measured["bytes"])
        # XLA counted each loop body once; add its other trips, as the HLO states them
        self.flops = self.xla_flops + max(done.flops - done.flops_once, 0.0)
        self.loops = done.unknown
        self.callbacks = host.with_lines(
            made(done.callbacks, source), measured.get("callback_lines", {})
        )

        # what calling the function for values ran (None: not recorded)
        self.ran = executed_flops(measured.get("executed"), source)
        self.traced_flops = self.flops
        # eager operations around a right answer (a zeros to start from, a conversion)
        # add a little: what the calls ran is weighed where it is clearly more
        if self.ran is not None and self.ran[0] > self.flops * RAN_MARGIN:
            self.flops = self.ran[0]

    def details(self) -> dict[str, Any]:
        return {
            "flops": self.flops,
            "xla_flops": self.xla_flops,
            "bytes_accessed": self.bytes,
            "traced_flops": self.traced_flops,
            "ran": None if self.ran is None else {"flops": self.ran[0], "executions": self.ran[1]},
            "unknown_trip_loops": [l.to_dict() for l in self.loops],
            "callbacks": {m.primitive: m.times for m in self.callbacks},
        }


@check_kind("cost")
class CostCheck(ScriptMeasureCheck):
    FIELDS = ScriptMeasureCheck.FIELDS + ("factor",)
    INSTRUMENT = instrument(measure_cost, setup=bind_compiling, helpers=(host.callback_lines,))
    DODGES = ("loop_flops", "host_callback", "trace_switch", "host_compute")
    doing = "compiled with jax.jit"
    OFF_DEVICE_FIGURE = "a figure of few flops"
    error_hint = (
        "The judge compiles your function with jax.jit to read XLA's cost analysis: "
        "code that needs concrete values (np.asarray(x), float(x), an `if` on an "
        "array's value) cannot be compiled; use jax.numpy and jax.lax."
    )
    usual_cause = (
        "the computation is arranged so that it does more arithmetic than it needs "
        "(work done twice, or in an order that makes an intermediate result "
        "larger than necessary)"
    )

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.factor = float(r.number("factor", 1.0, low=1.0))

    def options(self, task: Task) -> dict[str, Any]:
        return {"max_chars": MAX_HLO_CHARS, "callbacks": list(host.SPELLED)}

    def judge(self, grading: GradingView, calls: list[Measured]) -> CheckResult:
        for c in calls:
            if c.mine["too_large"]:
                return self.failed(
                    f"at scripted call {c.index} ({c.label}), your compiled program is "
                    f"{c.mine['too_large']:,} characters of HLO, over the {MAX_HLO_CHARS:,} the "
                    f"judge reads: it is far larger than it needs to be (a Python loop "
                    f"unrolled many times?)",
                    details={"too_large": c.mine["too_large"]},
                )
        figures = [(c, Figures(c.mine), Figures(c.reference)) for c in calls]
        details = {
            "factor": self.factor,
            "calls": [
                dict(
                    call=c.label,
                    **mine.details(),
                    **{f"reference_{k}": v for k, v in theirs.details().items()},
                )
                for c, mine, theirs in figures
            ],
        }
        # figures made without the recorder (a reference measured by hand) weigh the
        # trace alone; where the reference's calls were recorded, the learner's must be
        recorded = [c for c, _, _ in figures if "executed" in c.reference]
        if any(theirs.ran is None for c, _, theirs in figures if "executed" in c.reference):
            return self.result(
                Status.ERROR,
                "the judge could not record the device programs "
                "the reference's calls ran, so no figure of what a call does "
                "can be compared: the judge is at fault",
                verdict=Verdict.JUDGE_ERROR,
                details=details,
            )
        for c, mine, theirs in figures:
            at = f"at scripted call {c.index} ({c.label})"
            if mine.ran is None and c in recorded:
                return self.failed(
                    f"{at}, the judge could not record the device programs your function ran "
                    f"when called (the record of what the call ran is missing or incomplete), "
                    f"so its flops cannot be known and the check fails. Usual cause: code "
                    f"that changes jax's dispatch or the judge's recorder.",
                    details=details,
                )
            found = host.extra(mine.callbacks, host.by_primitive(theirs.callbacks))
            if found:
                return self.failed(
                    host.failure(
                        found, host.by_primitive(theirs.callbacks), f"{at}, your compiled program"
                    ),
                    details=details,
                )
            if mine.loops and not theirs.loops:
                loop = mine.loops[0]
                where = (
                    f" at line {loop.line}"
                    if loop.line and loop.file.rsplit("/", 1)[-1] == c.mine.get("source")
                    else ""
                )
                return self.failed(
                    f"{at}, your compiled program has a loop{where} whose trip count XLA "
                    f"does not know (a lax.while_loop, or a fori_loop whose bounds are traced "
                    f"values), so the judge cannot say how many flops it does: XLA counts its "
                    f"body once ({_num(mine.flops)} flops that way, against the reference's "
                    f"{_num(theirs.flops)}), and it may run any number of times. The "
                    f"reference's program has no such loop.\nUsual cause: a loop over an "
                    f"array dimension written with a condition or bounds computed from the "
                    f"arrays; the shapes are known while tracing, so use them (a fori_loop "
                    f"or scan with Python bounds), or better, one operation on the whole "
                    f"array.",
                    details=details,
                )
            limit = theirs.flops * self.factor
            if mine.flops > limit:
                return self.failed(self.over(c, mine, theirs, limit), details=details)
        values = self.value_calls(grading)
        problem = self.value_calls_off_device(values) or self.value_calls_over(values)
        if problem is not None:
            return self.failed(problem, details=details)
        worst = max(figures, key=lambda f: f[1].flops / max(f[2].flops, 1.0))
        c, mine, theirs = worst
        text = (
            f"your compiled program's flops are within {self.factor:g} x the reference's on "
            f"all {len(calls)} scripted calls (closest: call {c.index}, "
            f"{_num(mine.flops)} against {_num(theirs.flops)})"
        )
        printed = sum(
            m.times for _, f, _ in figures for m in f.callbacks if m.primitive in host.NOT_COUNTED
        )
        if printed:
            text += (
                "; its jax.debug.print calls copy what they print to the host on every "
                "run (not counted against you)"
            )
        return self.result(Status.PASSED, text, details=details)

    def value_calls_over(self, values: list[ValueCall]) -> str | None:
        """The first value call whose programs did far more work than the reference's
        on the same input, in words (None: none did).  The scripted calls above weigh
        the instrument's trace and its own call, which comes right after the trace;
        every other call the judge made for values is weighed here."""
        for v in values:
            theirs = executed_flops(v.reference)
            if theirs is None:  # the reference's figure unknown: nothing to weigh against
                continue
            mine = executed_flops(v.mine)
            if mine is None:
                return (
                    f"at {v.where} ({v.label}), the judge could not know the flops of the "
                    f"device programs your function ran when called (a program's cost "
                    f"analysis is unknown, or the record of what the call ran is missing), "
                    f"so the check fails. Usual cause: code that changes jax's dispatch or "
                    f"the judge's recorder."
                )
            limit = theirs[0] * self.factor * VALUE_MARGIN + VALUE_SLACK
            if mine[0] > limit:
                return (
                    f"at {v.where} ({v.label}), {self.VALUE_CALLS_NOTE}: calling it ran "
                    f"{plural(mine[1], 'device program')} doing {_num(mine[0])} flops in all, "
                    f"against the {_num(theirs[0])} of the reference's call on the same "
                    f"input (allowed: {_num(limit)}), while the scripted calls the judge "
                    f"compiled and measured were within budget. The figure is what your "
                    f"calls run.\nUsual cause: {self.VALUE_CALLS_CAUSE}; or {self.cause}."
                )
        return None

    def over(self, c: Measured, mine: Figures, theirs: Figures, limit: float) -> str:
        if mine.flops > mine.traced_flops:
            factor = f"{self.factor:g} x " if self.factor != 1 else ""
            return (
                f"at scripted call {c.index} ({c.label}), your function did different work "
                f"when called than when traced: compiled from the judge's trace it does "
                f"{_num(mine.traced_flops)} flops, but calling it ran "
                f"{plural(mine.ran[1], 'device program')} doing {_num(mine.ran[0])} flops "  # type: ignore[index]  # above the trace's: what ran
                f"in all, against the reference's {_num(theirs.flops)} (budget: "
                f"{factor}the reference's, {_num(limit)}). The figure is what your calls "
                f"run.\nUsual cause: code that checks whether it is being traced "
                f"(isinstance(x, jax.core.Tracer)) and does other work when called; or "
                f"{self.cause}."
            )
        times = mine.flops / theirs.flops if theirs.flops else None
        ratio = f"{times:.1f} times the reference's" if times else "the reference's"
        factor = f"{self.factor:g} x " if self.factor != 1 else ""
        loops = ""
        if mine.flops > mine.xla_flops:
            loops = (
                f" That counts each loop body once per trip: XLA's own cost analysis, "
                f"which counts a body once, says {_num(mine.xla_flops)}."
            )
        return (
            f"at scripted call {c.index} ({c.label}), your compiled program does "
            f"{_num(mine.flops)} flops, {ratio} {_num(theirs.flops)} "
            f"(budget: {factor}the reference's, {_num(limit)}). It reads and writes "
            f"{_num(mine.bytes)} bytes (the reference's: {_num(theirs.bytes)}).{loops}\n"
            f"Usual cause: {self.cause}."
        )
