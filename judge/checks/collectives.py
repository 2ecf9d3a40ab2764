"""``collectives``: what the learner's compiled program sends between devices.

A performance check.  In the worker, the instrument compiles the learner's whole
function with ``jax.jit`` on a script's inputs (placed on the task's mesh) and sends the
compiled program's HLO text; the judge counts its collectives per kind (all-reduce,
all-gather, reduce-scatter, collective-permute, all-to-all, their async ``-start`` forms
included; one inside a loop once per trip where the trip count is fixed) and the bytes
they deliver to each device, and compares them with the reference's, compiled the same
way on the same backend.  Budgets come from the reference, never from theory: XLA
merges collectives (three gradient all-reduces can become one), differently on each
backend.

Each collective comes with where it came from: the function's arguments its data flows
from (the compiled program names its parameters after them), the jax operation that
asked for it and the line of the learner's file, so a message can say "an all-gather of
`x` from jax.reshard at line 7".

The compiled program is the judge's own trace; a function can tell it from a call
(``isinstance(x, jax.core.Tracer)``) and run other programs when called (a jitted
all-gather).  So the instrument also calls the function for values, and the worker
records the device programs that call ran (``judge/worker/executions.py``); their
collectives, times the times each ran, are weighed too, against the same budget (the
reference's likewise).  Where they could not be recorded, the check fails closed.
Where the call ran exactly the traced program (one program, compiled from the very
jaxpr of the trace, on the call's own arrays, its outputs the call's value:
``Executions.ran_as_traced``), that program's HLO is the one read and its value the one
kept: the call compiles it once, and the trace is not compiled again.

Every call made for values must also read on the device each input the reference's
call read (the off-device rule, ``on_device.py``): an answer computed with NumPy and
handed back with ``jnp.asarray`` runs programs of almost no work.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..verdicts import Status, Verdict
from . import callbacks as host
from .base import Measured, ScriptMeasureCheck, check_kind, instrument
from .hlo import Program, host_callbacks, made, read_hlo
from .outcome import plural

if TYPE_CHECKING:
    from ..bank import FieldReader, Task
    from ..report import CheckResult
    from .base import GradingView, ValueCall
    from .hlo import Instruction

KINDS = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")
MAX_HLO_CHARS = 3 << 20
# a value call's bytes budget: the reference's on the same input times this, plus this
VALUE_MARGIN, VALUE_SLACK = 1.25, 4096

# What usually makes a program send more of a kind than it needs, in a learner's words.
CAUSES = {
    "all-gather": "every device receives the whole of {what}: usually a reshard to a "
    "replicated layout (jax.reshard, jax.device_put or with_sharding_constraint "
    "to P()) or an operation XLA could not keep split, before the reduction. "
    "Reduce the part each device holds first and combine the partial results",
    "all-reduce": "each all-reduce sums partial results over the devices; more of them than "
    "the reference usually means reducing in several steps (a psum per quantity, "
    "or a sum and a count reduced apart) where one would do",
    "reduce-scatter": "a reduce-scatter sums partial results and leaves each device one block "
    "of the sum: usually a sharding constraint that splits a reduced value",
    "collective-permute": "each collective-permute passes blocks between devices; more than "
    "the reference means more steps around the ring, or a shift XLA "
    "inserted to realign blocks",
    "all-to-all": "an all-to-all sends a block from every device to every other: usually a "
    "reshape or transpose that changes which dimension is split",
}


def bind_jax():  # type: ignore[no-untyped-def]  # shipped
    """Runs in the worker before the learner's file: jax's own functions, whatever the
    learner's code replaces later."""
    import os

    import jax
    import jax.extend.core

    errors = jax.errors
    return {
        "jit": jax.jit,
        "lower": jax.stages.Traced.lower,
        "jaxpr_of": jax.stages.Traced.jaxpr.fget,
        "compile": jax.stages.Lowered.compile,
        "as_text": jax.stages.Compiled.as_text,
        "make_jaxpr": jax.make_jaxpr,
        "jaxprs_in_params": jax.extend.core.jaxprs_in_params,
        "realpath": os.path.realpath,
        "host_errors": (
            errors.TracerArrayConversionError,
            errors.ConcretizationTypeError,
            errors.TracerBoolConversionError,
            errors.TracerIntegerConversionError,
        ),
    }


def compile_for_collectives(ctx, args, kwargs, options):  # type: ignore[no-untyped-def]  # shipped
    """Runs in the worker: the compiled program of ``jax.jit(function)`` at these
    arguments, as HLO text, and the value it computes, kept for the judge to compare.
    A function that needs concrete values (NumPy on a traced array, ``if`` on one) has
    no compiled program: say where it needed them, and keep its plain call's value.

    The function is traced, then called for values as the other checks call it (the
    programs it ran recorded); where that call ran exactly the traced program
    (``ctx.ran_as_traced``), that program is the one read and its value the one kept,
    so the call compiles once; otherwise the trace is compiled and run."""
    jax_ = ctx.bound
    source = ctx.source_file
    # the call as a function of its arrays (Python numbers static, the result checked);
    # its parameters keep the entrypoint's names, which the compiled program carries
    fn, arrays = ctx.traceable(args, kwargs)
    try:
        traced = jax_["jit"](fn).trace(*arrays)
    except jax_["host_errors"] as exc:
        line = None
        tb = exc.__traceback__
        while tb is not None:
            if source and tb.tb_frame.f_code.co_filename == source:
                line = tb.tb_lineno
            tb = tb.tb_next
        value, executed = ctx.called(args, kwargs)
        ctx.keep(value)
        return {
            "host": {"error": type(exc).__name__, "message": str(exc)[:600], "line": line},
            "executed": executed,
        }
    # the function called for values, as the other checks call it: the programs it ran
    value, executed = ctx.called(args, kwargs)
    ran = ctx.ran_as_traced(jax_["jaxpr_of"](traced), arrays, value)
    if ran is not None:
        text = ran.get_hlo_text()
        ctx.keep(value)
    else:
        with ctx.compiling():
            compiled = jax_["compile"](jax_["lower"](traced))
        text = jax_["as_text"](compiled)
        ctx.keep(compiled(*arrays))
    if len(text) > int(options.get("max_chars", 3 << 20)):
        return {"too_large": len(text), "executed": executed}
    lines = (
        callback_lines(jax_, fn, arrays, source, options.get("callbacks", ()))  # type: ignore[name-defined]  # shipped beside it
        if "callback" in text
        else {}
    )
    return {
        "hlo": text,
        "source": str(source or "").rsplit("/", 1)[-1],
        "callback_lines": lines,
        "executed": executed,
    }


# ---------------------------------------------------------------- what the program sends

_KIND_OF = {
    **{k: k for k in KINDS},
    **{f"{k}-start": k for k in KINDS},
    "ragged-all-to-all": "all-to-all",
}
# ops whose ``to_apply`` is a combiner (it sends nothing); any other callee, a ``call``'s
# included (XLA's CPU wraps small loops in one), is part of the program
_COMBINERS = frozenset(
    "all-reduce all-reduce-start reduce-scatter reduce reduce-window "
    "scatter select-and-scatter sort map".split()
)


@dataclass
class Site:
    """One collective of the program, and how often one run of the program executes it."""

    kind: str
    times: int
    bytes_each: int
    sources: list[str]  # the function's arguments its data flows from
    operation: str  # the jax operation that asked for it ("reshard", "psum", ...)
    file: str = ""
    line: int | None = None
    fixed_trips: bool = True  # False: inside a loop whose trip count is not fixed (counted once)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "times": self.times,
            "bytes_each": self.bytes_each,
            "sources": self.sources,
            "operation": self.operation,
            "file": self.file,
            "line": self.line,
            "fixed_trips": self.fixed_trips,
        }


class _Walk:
    LIMIT = 200_000  # instructions visited: a program is at most a few thousand

    def __init__(self, program: Program):
        self.program = program
        self.visited = 0
        self.sites: list[Site] = []

    def computation(
        self, name: str, times: int, fixed: bool, resolve: Any, depth: int = 0
    ) -> list[Site]:
        comp = self.program.computations.get(name, {})
        found: list[Site] = []
        if depth > 64:
            return found
        for ins in comp.values():
            self.visited += 1
            if self.visited > self.LIMIT:
                return found
            kind = _KIND_OF.get(ins.opcode)
            if kind:
                frame = self.program.frames.get(ins.frame) if ins.frame is not None else None
                found.append(
                    Site(
                        kind,
                        times,
                        ins.bytes(),
                        self.sources(comp, ins, resolve),
                        _operation(ins.op_name),
                        frame[0] if frame else "",
                        frame[1] if frame else None,
                        fixed,
                    )
                )
            if not ins.callees:
                continue
            inner = functools.partial(self.operand_sources, comp, ins, resolve)
            if ins.opcode == "while":
                trips = ins.trips if ins.trips is not None else 1
                for _role, callee in ins.callees:
                    found += self.computation(
                        callee,
                        times * trips,
                        fixed and ins.trips is not None,
                        lambda k, inner=inner: inner(None),
                        depth + 1,
                    )
            elif ins.opcode == "conditional":
                branches = [
                    self.computation(
                        c, times, fixed, lambda k, i=i, inner=inner: inner(i + 1), depth + 1
                    )
                    for i, (_, c) in enumerate(ins.callees)
                ]
                found += max(branches, key=lambda b: sum(s.times for s in b), default=[])
            else:
                for role, callee in ins.callees:
                    if role != "to_apply" or ins.opcode not in _COMBINERS:
                        found += self.computation(callee, times, fixed, inner, depth + 1)
        return found

    def operand_sources(
        self, comp: dict[str, Instruction], ins: Instruction, resolve: Any, k: int | None
    ) -> list[str]:
        """Where operand ``k`` of a call site comes from (None: all its operands)."""
        picked = ins.operands if k is None else ins.operands[k : k + 1]
        out: list[str] = []
        for name in picked:
            out += self.trace(comp, name, resolve)
        return list(dict.fromkeys(out))

    def sources(self, comp: dict[str, Instruction], ins: Instruction, resolve: Any) -> list[str]:
        out: list[str] = []
        for name in ins.operands:
            out += self.trace(comp, name, resolve)
        return list(dict.fromkeys(out))

    def trace(self, comp: dict[str, Instruction], start: str, resolve: Any) -> list[str]:
        """The function arguments (entry parameters) an instruction's value flows from."""
        out: list[str]
        seen: set[str]
        out, seen, todo = [], set(), [start]
        while todo and len(seen) < 2000:
            name = todo.pop()
            if name in seen or name not in comp:
                continue
            seen.add(name)
            ins = comp[name]
            if ins.parameter is not None:
                out += resolve(ins.parameter)
            else:
                todo += ins.operands
        return out


# jax's primitive names, as a learner wrote them
_SPELLED = {
    "psum_invariant": "lax.psum",
    "psum": "lax.psum",
    "pmean": "lax.pmean",
    "ppermute": "lax.ppermute",
    "all_gather": "lax.all_gather",
    "all_gather_invariant": "lax.all_gather",
    "psum_scatter": "lax.psum_scatter",
    "reduce_scatter": "lax.psum_scatter",
    "all_to_all": "lax.all_to_all",
    "reshard": "jax.reshard",
    "sharding_constraint": "with_sharding_constraint",
    "device_put": "jax.device_put",
    "reduce_sum": "a sum",
    "reduce_max": "a max",
    "reduce_min": "a min",
    "dot_general": "a matmul",
    "reshape": "a reshape",
    "transpose": "a transpose",
}


def _operation(op_name: str) -> str:
    """The jax operation in an op_name ("jit(f)/shard_map/ppermute" -> "lax.ppermute")."""
    last = re.sub(r"\W+$", "", op_name.rsplit("/", 1)[-1])
    return _SPELLED.get(last, last)


def collective_sites(program: Program) -> list[Site]:
    entry = program.computations.get(program.entry, {})
    params = {ins.parameter: ins.op_name for ins in entry.values() if ins.parameter is not None}

    def argument(k: int) -> list[str]:
        return [params[k]] if params.get(k) else []

    return _Walk(program).computation(program.entry, 1, True, argument)


@dataclass
class Tally:
    """Collectives per kind, and bytes delivered per device, in one run of a program."""

    counts: dict[str, int]
    bytes: int
    sites: list[Site]
    num_partitions: int
    callbacks: Sequence[host.Made] = ()  # callbacks.Made: the program's host callbacks

    @classmethod
    def of(cls, measured: dict[str, Any]) -> "Tally":
        program = read_hlo(str(measured.get("hlo", "")))
        sites = collective_sites(program)
        counts = {k: sum(s.times for s in sites if s.kind == k) for k in KINDS}
        return cls(
            counts,
            sum(s.times * s.bytes_each for s in sites),
            sites,
            program.num_partitions,
            host.with_lines(
                made(
                    host_callbacks(program, str(measured.get("source") or "")),
                    str(measured.get("source") or ""),
                ),
                measured.get("callback_lines") or {},
            ),
        )

    @classmethod
    def ran(cls, measured: dict[str, Any]) -> "Tally | None":
        """What the programs a call ran send, each program's collectives times the times
        it ran; None when that was not recorded (or a program's HLO did not come)."""
        executed = measured.get("executed")
        if not isinstance(executed, dict):
            return None
        source = str(measured.get("source") or "")
        counts = {k: 0 for k in KINDS}
        sites: list[Site] = []
        total = 0
        for program in executed.get("programs") or ():
            if program.get("hlo_missing"):
                return None
            if not program.get("hlo"):
                continue
            one = cls.of({"hlo": program["hlo"], "source": source})
            times = int(program.get("times", 1))
            for k in KINDS:
                counts[k] += times * one.counts[k]
            total += times * one.bytes
            for site in one.sites:
                sites.append(Site(**dict(site.to_dict(), times=site.times * times)))
        # programs left out of the record: their collectives as the worker counted them
        for k, n in (executed.get("collectives") or {}).items():
            if k in counts and int(n) > counts[k]:
                counts[k] = int(n)
        return cls(counts, total, sites, 0, [])

    def details(self) -> dict[str, Any]:
        return {
            "counts": self.counts,
            "bytes": self.bytes,
            "num_partitions": self.num_partitions,
            "sites": [s.to_dict() for s in self.sites[:40]],
            "callbacks": host.by_primitive(self.callbacks),
        }


def _ran_or_counted(record: dict[str, Any], source: str) -> Tally:
    """What a value call's programs send (``Tally.ran``); where a program's HLO did not
    come (a reply holds a bounded amount), the collectives the worker counted in it,
    once each: a figure no larger than what ran."""
    ran = Tally.ran({"executed": record, "source": source})
    if ran is not None:
        return ran
    counts = {k: int((record.get("collectives") or {}).get(k, 0)) for k in KINDS}
    return Tally(counts, 0, [], 0, [])


# ---------------------------------------------------------------- the check


@check_kind("collectives")
class CollectivesCheck(ScriptMeasureCheck):
    FIELDS = ScriptMeasureCheck.FIELDS + ("budget", "bytes", "advice")
    INSTRUMENT = instrument(compile_for_collectives, setup=bind_jax, helpers=(host.callback_lines,))
    DODGES = ("host_callback", "trace_switch", "host_compute")
    doing = "compiled with jax.jit on the sharded inputs"
    OFF_DEVICE_FIGURE = "a figure of little sent between devices"
    error_hint = (
        "The judge compiles your whole function with jax.jit to see what it sends "
        "between devices: inside it the arrays are tracers (jax.typeof(x).sharding, "
        "not x.sharding; jnp, not NumPy)."
    )

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.budget = {k: "reference" for k in KINDS}
        budget_r = r.child("budget", r.data.get("budget", {}))
        budget_r.only(KINDS)
        for kind, value in budget_r.data.items():
            if not (
                value == "reference"
                or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)
            ):
                budget_r.fail("expected a number of at least 0 or 'reference'", kind)
            self.budget[kind] = value
        self.bytes = r.get("bytes", (int, str), None, what="a number or 'reference'")
        if isinstance(self.bytes, str) and self.bytes != "reference":
            r.fail(f"expected a number or 'reference', got '{self.bytes}'", "bytes")
        advice_r = r.child("advice", r.data.get("advice", {}))
        advice_r.only(KINDS + ("bytes",))
        self.advice = {k: str(v) for k, v in advice_r.data.items()}

    def options(self, task: Task) -> dict[str, Any]:
        return {"max_chars": MAX_HLO_CHARS, "callbacks": list(host.SPELLED)}

    def judge(self, grading: GradingView, calls: list[Measured]) -> CheckResult:
        results = []
        for c in calls:
            where = f"scripted call {c.index} of {len(calls)}: " if len(calls) > 1 else ""
            if "hlo" not in c.reference:
                return self.result(
                    Status.ERROR,
                    "the reference has no compiled program to count "
                    f"collectives in ({_first(c.reference)}): the task is at fault",
                    verdict=Verdict.JUDGE_ERROR,
                )
            theirs = Tally.of(c.reference)
            recorded = "executed" in c.reference  # not in figures made by hand
            theirs_ran = Tally.ran(c.reference) if recorded else theirs
            if theirs_ran is None:
                return self.result(
                    Status.ERROR,
                    "the judge could not record the device "
                    "programs the reference's calls ran: the judge is at fault",
                    verdict=Verdict.JUDGE_ERROR,
                )
            theirs.counts = {k: max(theirs.counts[k], theirs_ran.counts[k]) for k in KINDS}
            if "hlo" not in c.mine:
                return self.failed(
                    where + self.no_program(c.mine, c.label),
                    details={"reference": theirs.details(), "call": c.label},
                )
            mine = Tally.of(c.mine)
            source = c.mine.get("source") or "submission.py"
            ran = Tally.ran(c.mine) if recorded else mine
            if ran is None:
                return self.failed(
                    f"{where}the judge could not record the device programs your function ran "
                    f"when called on {c.label}, so what it sends between devices cannot be "
                    f"known and the check fails. Usual cause: code that changes jax's "
                    f"dispatch or the judge's recorder.",
                    details={"call": c.label},
                )
            verdict = self.compare(mine, theirs, c.label, source, where)
            if verdict is not None:
                return verdict
            if any(ran.counts[k] > mine.counts[k] for k in KINDS):
                verdict = self.compare(ran, theirs, c.label, source, where)
                if verdict is not None:
                    traced = (
                        ", ".join(f"{plural(mine.counts[k], k)}" for k in KINDS if mine.counts[k])
                        or "no collectives"
                    )
                    made_by_calls = (
                        ", ".join(f"{plural(ran.counts[k], k)}" for k in KINDS if ran.counts[k])
                        or "no collectives"
                    )
                    verdict.message = (
                        f"{where}your function did different work when called than when "
                        f"traced: the program the judge compiles from its trace makes "
                        f"{traced}, but calling it on {c.label} ran "
                        f"{plural(int(c.mine['executed'].get('executions') or 0), 'device program')}"
                        f" making {made_by_calls}, and those are weighed (usual cause: code that "
                        f"checks isinstance(x, jax.core.Tracer) and does other work when "
                        f"called).\n"
                        + verdict.message.replace(
                            f"your compiled program on {c.label} makes",
                            f"the programs your call ran on {c.label} make",
                        )
                    )
                    return verdict
            results.append(
                (
                    self.summary(mine, theirs, c.label),
                    {
                        "call": c.label,
                        "mine": mine.details(),
                        "reference": theirs.details(),
                        "budget": self.limits(theirs),
                    },
                )
            )
        values = self.value_calls(grading)
        off_device = self.value_calls_off_device(values)
        if off_device is not None:
            return self.failed(off_device, details={"calls": [d for _, d in results]})
        problem = self.value_calls_over(values, calls)
        if problem is not None:
            return problem
        return self.result(
            Status.PASSED,
            "\n".join(text for text, _ in results),
            details={"calls": [d for _, d in results]},
        )

    def value_calls_over(
        self, values: list[ValueCall], calls: list[Measured]
    ) -> CheckResult | None:
        """The first value call (a property check's, a script's run) whose programs
        send more than the budget allows, against the reference's call on the same
        input (None: none does).  The scripted calls weigh the trace and the
        instrument's own call, which comes right after it; every other call the judge
        made for values is weighed here, by what the programs it ran send."""
        source = str(calls[0].mine.get("source") or "submission.py") if calls else ""
        # a budget of the reference's is at least what its scripted calls make: on an
        # input where XLA drops the reference's collective (an empty batch), a right
        # program may keep its own
        scripted = {k: 0 for k in KINDS}
        for c in calls:
            for tally in (Tally.of(c.reference), Tally.ran(c.reference)):
                for k in KINDS:
                    scripted[k] = max(scripted[k], tally.counts[k] if tally else 0)
        for v in values:
            theirs = _ran_or_counted(v.reference, source)
            theirs.counts = {k: max(theirs.counts[k], scripted[k]) for k in KINDS}
            # bytes grow with the input: the reference's on the same input, with room
            theirs.bytes = int(theirs.bytes * VALUE_MARGIN) + VALUE_SLACK
            mine = _ran_or_counted(v.mine, source)
            verdict = self.compare(
                mine, theirs, v.label, source, f"at {v.where}: ", task_bytes=False
            )
            if verdict is None:
                continue
            made_by_calls = (
                ", ".join(f"{plural(mine.counts[k], k)}" for k in KINDS if mine.counts[k])
                or "no collectives"
            )
            verdict.message = (
                f"at {v.where}: {self.VALUE_CALLS_NOTE}: calling it on {v.label} ran "
                f"{plural(int(v.mine.get('executions') or 0), 'device program')} making "
                f"{made_by_calls}, while the scripted calls the judge compiled and "
                f"measured were within budget (usual cause: {self.VALUE_CALLS_CAUSE}).\n"
                + verdict.message.replace(
                    f"your compiled program on {v.label} makes",
                    f"the programs your call ran on {v.label} make",
                )
            )
            return verdict
        return None

    def limits(self, theirs: Tally) -> dict[str, int]:
        return {k: theirs.counts[k] if b == "reference" else b for k, b in self.budget.items()}  # type: ignore[misc]  # else a number

    def compare(
        self,
        mine: Tally,
        theirs: Tally,
        label: str,
        source: str,
        where: str,
        task_bytes: bool = True,
    ) -> CheckResult | None:
        """The first budget ``mine`` breaks (None: none); ``task_bytes=False`` leaves out
        a bytes budget the task set as a number (set for the script's shapes)."""
        limits = self.limits(theirs)
        details = {
            "mine": mine.details(),
            "reference": theirs.details(),
            "budget": limits,
            "call": label,
        }
        # a callback hands the devices' values to Python on the host: a gather through
        # the host that no collective shows
        found = host.extra(mine.callbacks, host.by_primitive(theirs.callbacks))
        if found:
            return self.failed(
                host.failure(
                    found,
                    host.by_primitive(theirs.callbacks),
                    f"{where}your compiled program on {label}",
                    " Called from a sharded program, a callback also "
                    "gathers every device's part to the host.",
                ),
                details=details,
            )
        for kind in KINDS:
            if mine.counts[kind] <= limits[kind]:
                continue
            budget = limits[kind]
            basis = (
                f"the reference's {theirs.counts[kind]}"
                if self.budget[kind] == "reference"
                else "set by the task"
            )
            head = (
                f"{where}your compiled program on {label} makes "
                f"{plural(mine.counts[kind], kind)} where the budget is {budget} ({basis})"
            )
            lines = [head] + [f"  {self.site_words(s, source)}" for s in self.worst(mine, kind)]
            lines.append(f"  {CAUSES[kind].format(what=self.what(mine, kind))}.")
            if kind in self.advice:
                lines.append(f"  {self.advice[kind]}")
            return self.failed("\n".join(lines), details=details)
        if self.bytes is not None and (task_bytes or self.bytes == "reference"):
            budget = theirs.bytes if self.bytes == "reference" else self.bytes
            if mine.bytes > budget:
                basis = "the reference's" if self.bytes == "reference" else "set by the task"
                lines = [
                    f"{where}your compiled program on {label} delivers "
                    f"{mine.bytes} bytes to each device through its collectives, over the "
                    f"budget of {budget} ({basis}): the counts are within budget, so some "
                    f"collective carries far more than it needs"
                ]
                lines += [f"  {self.site_words(s, source)}" for s in self.worst(mine, None)]
                if "bytes" in self.advice:
                    lines.append(f"  {self.advice['bytes']}")
                return self.failed("\n".join(lines), details=details)
        return None

    @staticmethod
    def worst(tally: Tally, kind: str | None, shown: int = 3) -> list[Site]:
        """The sites of that kind (None: any) that move most, the same one written once
        however often the program repeats it (an unrolled loop, a merged shape)."""
        grouped: dict[tuple[Any, ...], Site] = {}
        for s in tally.sites:
            if kind is None or s.kind == kind:
                key = (s.kind, tuple(s.sources), s.operation, s.line, s.bytes_each, s.fixed_trips)
                if key in grouped:
                    grouped[key].times += s.times
                else:
                    grouped[key] = Site(**s.to_dict())
        return sorted(grouped.values(), key=lambda s: -s.times * max(s.bytes_each, 1))[:shown]

    @staticmethod
    def what(tally: Tally, kind: str) -> str:
        names = [n for s in tally.sites if s.kind == kind for n in s.sources]
        names = list(dict.fromkeys(names))
        return ", ".join(f"`{n}`" for n in names) if names else "the array"

    @staticmethod
    def site_words(site: Site, source: str) -> str:
        of = (
            "of " + ", ".join(f"`{n}`" for n in site.sources)
            if len(site.sources) == 1
            else "of a value computed from " + ", ".join(f"`{n}`" for n in site.sources)
            if site.sources
            else ""
        )
        many = f"{site.times} {site.kind}s" if site.times > 1 else site.kind
        parts = [f"{many} {of}".strip()]
        if site.operation:
            parts.append(f"from {site.operation}")
        if site.line and site.file.rsplit("/", 1)[-1] == source:
            parts.append(f"at line {site.line}")
        each = " each" if site.times > 1 else ""
        loop = "" if site.fixed_trips else " (inside a loop with no fixed trip count: counted once)"
        return " ".join(parts) + f": {site.bytes_each} bytes to each device{each}{loop}"

    def summary(self, mine: Tally, theirs: Tally, label: str) -> str:
        limits = self.limits(theirs)
        shown = [
            f"{plural(mine.counts[k], k)} (budget {limits[k]})"
            for k in KINDS
            if mine.counts[k] or limits[k]
        ]
        rest = [k for k in KINDS if not (mine.counts[k] or limits[k])]
        text = f"your compiled program on {label}: " + (", ".join(shown) or "no collectives")
        if rest and shown:
            text += f"; no {', '.join(rest)}"
        if self.bytes is not None:
            text += f"; {mine.bytes} bytes to each device (the reference's: {theirs.bytes})"
        return text

    def no_program(self, measured: dict[str, Any], label: str) -> str:
        if "too_large" in measured:
            return (
                f"your compiled program on {label} is {measured['too_large']} "
                f"characters of HLO, over the {MAX_HLO_CHARS} the judge reads: it is far "
                f"larger than it needs to be (a Python loop unrolled many times?)"
            )
        host = measured.get("host") or {}
        at = f" at line {host['line']}" if host.get("line") else ""
        return (
            f"your function needs values on the host{at}, so it has no compiled program "
            f"to run on the devices: under jax.jit it raises {host.get('error', 'an error')} "
            f"({str(host.get('message', '')).splitlines()[0][:200] if host.get('message') else ''}). "
            "Called as it is, it copies every device's part of the arrays to the host: a "
            "gather through the host. The judge compiles your whole function with jax.jit "
            "on sharded inputs to see what it sends between devices; keep it traceable "
            "(jnp, not NumPy, on the arrays; jax.typeof(x).sharding, not x.sharding)"
        )


def _first(measured: dict[str, Any]) -> str:
    host = measured.get("host")
    if isinstance(host, dict):
        return f"{host.get('error')}: {str(host.get('message', ''))[:200]}"
    return f"{measured.get('too_large')} characters of HLO" if "too_large" in measured else "?"
