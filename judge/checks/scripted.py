"""Performance checks over a scripted sequence of calls declared in tasks.yaml.

``retrace``: how often the learner's compiled code traced (or compiled), against a
budget: a number, or ``reference``, what the reference did on the same calls in a fresh
process.  ``sync``: how often the learner's code pulled values back to the host.
The scripted calls' values are compared with the reference's too.  Both are measured
on the property check's generated inputs as well, against the reference's count on
the same inputs, so a budget holds over the whole declared domain.

What the learner's file traced and compiled while it loaded counts with the script's
calls (and the reference's load with the reference's): programs compiled ahead of time
for the script's lengths are charged like programs compiled on demand.  A retrace check
whose learner ran no program at all (no compile of any kind, load included) where the
reference compiled some fails too: the work was done on the host, so its figure of
zero measures nothing.

Every task counts host syncs by default (``DEFAULT_SYNC``, added by the bank to a task
that declares no sync check, unless ``host_syncs: allowed``): on the property check's
generated inputs, against the reference's syncs on the same inputs (zero where it makes
none), so a function that pulls its inputs to the host and computes there is
inefficient, with the line that pulled named.  A compiled program that calls a
custom-call target the learner's code registered (``jax.ffi.register_ffi_target`` with
a ctypes handler, a native library's) counts as a sync too, named by its target: the
work is on the host, where no pull shows it (judge/worker/custom_calls.py).  The
worker starts no process once the learner's file runs (judge/worker/confine.py), so
work done in a forked child is refused, not missed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..verdicts import Status, Verdict
from ..worker.wire import Leaf
from .base import CheckSpec, Phase, ResultAfterCalls, check_kind
from .on_device import off_device_message, unread_input
from .outcome import (
    call_label,
    counterexample,
    failed_call,
    mismatch,
    plural,
    replay,
    scripted_note,
)
from .script_drawing import drawing_key, script_drawing

if TYPE_CHECKING:
    from ..report import CheckResult
    from ..session import CallOutcome, ScriptRun
    from .base import FieldReader, GradingView


def shape_signature(args: dict[str, Any], keep: Sequence[str] = ()) -> str:
    """What of a call decides its compiled program: each array's kind, dtype and shape,
    each container's type and length; Python numbers only by type, except the arguments
    in ``keep`` (those a learner may make static), by value."""

    def one(value: Any, exact: bool) -> str:
        if isinstance(value, Leaf):
            return f"{value.kind}:{value.array.dtype}{list(value.array.shape)}"
        if isinstance(value, dict):
            return "{" + ",".join(f"{k}:{one(v, exact)}" for k, v in sorted(value.items())) + "}"
        if isinstance(value, (list, tuple)):
            return type(value).__name__ + "(" + ",".join(one(v, exact) for v in value) + ")"
        return repr(value) if exact else type(value).__name__

    return ";".join(f"{name}={one(value, name in keep)}" for name, value in args.items())


def generated_calls(grading: GradingView) -> list[tuple[dict[str, Any], CallOutcome]]:
    """The learner's calls on generated inputs: those of the task's checks that draw
    inputs (``draws_inputs``: the property check), in the order they were made."""
    labels = dict.fromkeys(c.calls_label for c in grading.task.checks if c.draws_inputs)
    return [call for label in labels for call in grading.learner_calls(label)]


class ScriptedCheck(CheckSpec):
    """A performance figure counted over a script (in fresh workers, the learner's and
    the reference's), and over the property check's generated inputs too, against the
    reference's figure on the same inputs: a budget holds over the whole declared
    domain, not only the script's shapes."""

    phase = Phase.FRESH
    failure_verdict = Verdict.INEFFICIENT
    FIELDS = CheckSpec.FIELDS + ("script", "budget", "slack", "may_be_static")

    SCRIPT_OPTIONAL = False  # a sync check may count the generated inputs alone
    # a program is compiled once per input, a sync made on every call: the reference's
    # figure for an input it already had is none (traces), or the same again (syncs)
    ONCE_PER_INPUT = True

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.script = r.get("script", str, None) if self.SCRIPT_OPTIONAL else r.get("script", str)
        if self.script is not None and self.script not in scripts:
            r.fail(
                f"no script named '{self.script}' (scripts: {', '.join(scripts) or 'none'})",
                "script",
            )
        if self.script is None:
            self.phase = Phase.LAST  # it reads the other checks' calls alone: after them
        budget = r.get("budget", (int, str), "reference", what="a number or 'reference'")
        if isinstance(budget, str) and budget != "reference":
            r.fail(f"expected a number or 'reference', got '{budget}'", "budget")
        if isinstance(budget, int) and budget < 0:
            r.fail("must be at least 0", "budget")
        self.budget = budget
        self.slack = int(r.number("slack", 0, low=0))
        # arguments the statement lets a learner make static: on generated inputs each
        # new value may cost one more program per shape
        self.may_be_static = r.get("may_be_static", list, [])
        names = list(scripts[self.script][0]) if self.script and scripts[self.script] else []
        for name in self.may_be_static:
            if name not in names:
                r.fail(
                    f"'{name}' is not an argument of the task ({', '.join(names)})", "may_be_static"
                )

    def scripts_run(self) -> tuple[str, ...]:
        return (self.script,) if self.script else ()

    def run(self, grading: GradingView) -> CheckResult | ResultAfterCalls:
        if self.script is None:
            return ResultAfterCalls(functools.partial(self.judge_generated, grading))
        mine = grading.learner_script(self.script)
        return ResultAfterCalls(functools.partial(self.judge, grading, mine))

    def judge_generated(self, grading: GradingView) -> CheckResult:
        """A check without a script: the property check's generated inputs alone, against
        the reference's figure on the same inputs."""
        generated = self.on_generated(grading, 0)
        if generated is None:
            return self.result(Status.SKIPPED, "not run: no generated inputs were called")
        passed, message, details = generated
        if passed:
            return self.result(Status.PASSED, message, details={"generated": details})
        return self.failed(message, details={"generated": details})

    def judge(self, grading: GradingView, mine: ScriptRun) -> CheckResult:
        ref = grading.reference_script(self.script)
        for i, (args, out) in enumerate(zip(mine.calls, mine.outcomes), 1):
            note = scripted_note(i, len(mine.calls), self.script)  # the replay's comment
            if not out.ok:
                return failed_call(
                    self, grading, args, out, f"scripted call {i} of {len(mine.calls)}: ", note
                )
            problem = mismatch(grading, args, out.value, ref.outcomes[i - 1].value)
            if problem:
                return self.result(
                    "failed",
                    f"scripted call {i} ({call_label(args)}): {problem.message}",
                    counterexample=counterexample(args, ref.outcomes[i - 1].value, out.value),
                    details=replay(grading, args, note),
                    verdict=Verdict.WRONG_ANSWER,
                )
        used, ref_used = (
            self.count(mine.outcomes, mine.loaded),
            self.count(ref.outcomes, ref.loaded),
        )
        budget = (ref_used if self.budget == "reference" else self.budget) + self.slack
        source = (
            f"the reference's {ref_used} on the same calls"
            if self.budget == "reference"
            else "set by the task"
        ) + (f", plus a slack of {self.slack}" if self.slack else "")
        details = dict(
            self.details(mine, ref),
            count=used,
            budget=budget,
            reference_count=ref_used,
            budget_source=self.budget,
            calls=[call_label(a) for a in mine.calls],
        )
        passed = used <= budget
        over = f"{len(mine.calls)} scripted calls" + (
            " and the loading of your file" if self.counts_load(mine.loaded) else ""
        )
        message = self.summary(used, budget, source, over, passed)
        explain = self.explain(list(zip(mine.calls, mine.outcomes)), mine.report, passed, "call")
        if explain:
            message += "\n" + explain
        load = self.explain_load(mine.loaded, ref.loaded)
        if load:
            message += "\n" + load
        off = self.off_device(mine, ref)
        if off:  # the headline: the figure below it measured nothing
            passed = False
            message = off + "\n  " + message
        generated = self.on_generated(grading, max(0, budget - ref_used))
        if generated is not None:
            gen_passed, gen_message, details["generated"] = generated
            passed = passed and gen_passed
            message += "\n" + gen_message
        if passed:
            return self.result(Status.PASSED, message, details=details)
        return self.failed(message, details=details)

    def on_generated(
        self, grading: GradingView, allowance: int
    ) -> tuple[bool, str, dict[str, Any]] | None:
        """(passed, message, details) for the property check's generated inputs, or None
        when it made no calls.  What the learner's code spent there beyond what the
        reference spent on the same inputs (``weigh``) must stay within the headroom the
        script's budget gives over the reference's count, plus one program per shape for
        each new value of a ``may_be_static`` argument."""
        calls = []
        for args, out in generated_calls(grading):
            if not out.ok:
                break
            calls.append((args, out))
        if not calls:
            return None
        theirs = grading.reference_outcomes([args for args, _ in calls])
        seen: set[int] = set()
        firsts = []  # the reference's figures belong to its first call of an input
        for ref in theirs:
            firsts.append(ref if id(ref) not in seen else None)
            seen.add(id(ref))
        shapes = [shape_signature(a) for a, _ in calls]
        static = (
            len({shape_signature(a, self.may_be_static) for a, _ in calls}) - len(set(shapes))
            if self.may_be_static
            else 0
        )
        used, where = self.weigh(calls, firsts if self.ONCE_PER_INPUT else theirs, shapes)
        budget = allowance + static
        parts = ([f"{allowance} of headroom, as on the script"] if allowance else []) + (
            [f"{static} for new values of {', '.join(self.may_be_static)}, which may be static"]
            if static
            else []
        )
        passed = used <= budget
        over = (
            f"the {len(calls)} generated inputs of the property check "
            f"({len(set(shapes))} distinct shapes)"
        )
        source = f" ({' plus '.join(parts)})" if parts else ""
        message = self.generated_summary(used, budget, source, over, passed)
        if not passed and where:
            explain = self.explain_excess([(i, calls[i - 1][0], calls[i - 1][1]) for i in where])
            if explain:
                message += "\n" + explain
        return (
            passed,
            message,
            {
                "count": used,
                "budget": budget,
                "inputs": len(calls),
                "shapes": len(set(shapes)),
                "at": where[:50],
            },
        )

    def weigh(
        self,
        calls: list[tuple[dict[str, Any], CallOutcome]],
        theirs: Sequence[CallOutcome | None],
        shapes: list[str],
    ) -> tuple[int, list[int]]:
        """What the learner's calls on generated inputs spent beyond the reference's calls
        on the same inputs (``theirs[i]`` None where the reference had that input before;
        ``shapes[i]``: the call's shape signature), and the calls (1-based) that did."""
        raise NotImplementedError

    def generated_summary(
        self, used: int, budget: int, source: str, over: str, passed: bool
    ) -> str:
        raise NotImplementedError

    def explain_excess(self, calls: list[tuple[int, dict[str, Any], CallOutcome]]) -> str:
        """Lines about the calls (index, args, outcome) that spent beyond the reference."""
        return ""

    def count(self, outcomes: list[CallOutcome], loaded: Sequence[Any] = ()) -> int:
        """The figure over a script's calls (``outcomes``) and the events of the file's
        load (``loaded``)."""
        raise NotImplementedError

    def counts_load(self, loaded: Sequence[Any]) -> bool:
        """Did the file's load add to the figure?"""
        return False

    def explain_load(self, loaded: Sequence[Any], reference_loaded: Sequence[Any]) -> str:
        return ""

    def off_device(self, mine: ScriptRun, ref: ScriptRun) -> str | None:
        """Why the figure measures nothing (the work was done on the host), or None."""
        return None

    def details(self, mine: ScriptRun, ref: ScriptRun) -> dict[str, Any]:
        return {}

    def summary(self, used: int, budget: int, source: str, over: str, passed: bool) -> str:
        raise NotImplementedError

    def explain(
        self, calls: list[tuple[dict[str, Any], CallOutcome]], report: Any, passed: bool, noun: str
    ) -> str:
        return ""


def _events(outcomes: Iterable[CallOutcome]) -> list[dict[str, Any]]:
    return [e for o in outcomes for e in o.traces if isinstance(e, dict)]


def _eager_compiles(events: list[dict[str, Any]]) -> dict[str, int]:
    ops: dict[str, int] = {}
    for e in events:
        if e.get("origin") == "eager" and e.get("stage") == "compile":
            ops[str(e.get("group"))] = ops.get(str(e.get("group")), 0) + 1
    return ops


@check_kind("retrace")
class RetraceCheck(ScriptedCheck):
    FIELDS = ScriptedCheck.FIELDS + ("measure", "include_eager")
    # programs compiled while the file loads are counted; a file that runs no program on
    # the device where the reference does fails here too
    DODGES = ("ahead_of_time", "host_compute")
    CLASS_SECTION = "Failed retrace scripts"

    @classmethod
    def html(cls, result: CheckResult) -> str:
        """The scripted calls drawn (script_drawing.py); passed too: the learner sees
        what 8, 16, 32 and 8 again cost, not only waste."""
        if result.status not in (Status.PASSED, Status.FAILED):
            return ""
        return script_drawing(result.details)

    @classmethod
    def class_key(cls, result: CheckResult) -> tuple[Any, ...] | None:
        """Each distinct failed script once in the class report."""
        if result.status == Status.FAILED and result.details.get("per_call"):
            return drawing_key(result.details)
        return None

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.measure = r.get("measure", str, "traces")
        if self.measure not in ("traces", "compiles", "retraces"):
            r.fail("must be 'traces', 'compiles' or 'retraces'", "measure")

        # eager ops compile too (a jnp.cumsum outside jit compiles once per length): a
        # task whose point is "no recompiles at all" counts them
        self.include_eager = r.get("include_eager", bool, False)

    def count(self, outcomes: list[CallOutcome], loaded: Sequence[Any] = ()) -> int:
        events = [e for e in loaded if isinstance(e, dict)] + _events(outcomes)
        learner = [e for e in events if e.get("origin") == "learner"]
        if self.measure == "retraces":
            # traces beyond each function's first: two helpers each traced once are no
            # worse than one, so a solution split differently from the reference's is fair
            total: int = sum(
                e.get("stage") == "trace" and not str(e.get("reason") or "").startswith("first")
                for e in learner
            )
            if self.include_eager:  # an eager op compiled again: a new length for jnp.cumsum, ...
                total += sum(max(0, n - 1) for n in _eager_compiles(events).values())
            return total
        stage = "trace" if self.measure == "traces" else "compile"
        made: int = sum(e.get("stage") == stage for e in learner)
        if self.include_eager:
            made += sum(e.get("origin") == "eager" and e.get("stage") == stage for e in events)
        return made

    def counts_load(self, loaded: Sequence[Any]) -> bool:
        return self.count([], loaded) > 0

    def explain_load(self, loaded: Sequence[Any], reference_loaded: Sequence[Any]) -> str:
        """What the file compiled while it loaded, before any call asked for it."""
        events = [e for e in loaded if isinstance(e, dict)]
        compiles = sum(
            e.get("stage") == "compile" and (e.get("origin") == "learner" or self.include_eager)
            for e in events
        )
        if not self.count([], loaded):
            return ""
        theirs = sum(e.get("stage") == "compile" for e in reference_loaded if isinstance(e, dict))
        lines = [
            f"  {plural(compiles, 'program')} compiled while your file loaded "
            f"(the reference's file: {theirs}): programs prepared ahead of any call "
            "(jit(...).lower(...).compile(), .trace(...), warm-up calls at import) count "
            "like programs compiled on demand"
        ]
        again: dict[str, list[str]] = {}  # group -> the reasons it traced again
        for e in events:
            reason = str(e.get("reason") or "")
            if (
                e.get("origin") == "learner"
                and e.get("stage") == "trace"
                and reason
                and not reason.startswith("first")
            ):
                again.setdefault(str(e.get("group")), []).append(reason.split("; ")[0])
        for group, reasons in list(again.items())[:3]:
            lines.append(
                f"  {group} traced again {plural(len(reasons), 'time')} while the file "
                f"loaded (first: {reasons[0]})"
            )
        return "\n".join(lines)

    def off_device(self, mine: ScriptRun, ref: ScriptRun) -> str | None:
        def compiled(run: ScriptRun) -> int:
            return sum(
                e.get("stage") == "compile"
                for e in [e for e in run.loaded if isinstance(e, dict)] + _events(run.outcomes)
            )

        theirs = compiled(ref)
        if compiled(mine) or not theirs:
            # programs ran: the answer must still come from the inputs on the device
            return self.unread_inputs(mine, ref)
        return (
            f"your code ran no program on the device over these calls (no compile at all, "
            f"eager operations and the file's load included, where the reference "
            f"compiled {plural(theirs, 'program')}): the work was done on the host (NumPy "
            f"or plain Python), so a figure of zero measures nothing; this task is about "
            f"doing it with jax under jit"
        )

    @staticmethod
    def unread_inputs(mine: ScriptRun, ref: ScriptRun) -> str | None:
        """The off-device rule (judge/checks/on_device.py) on the script's calls."""
        for i, (args, out, theirs) in enumerate(zip(mine.calls, mine.outcomes, ref.outcomes), 1):
            found = unread_input(
                args,
                (out.measured or {}).get("executed"),
                (theirs.measured or {}).get("executed"),
            )
            if found is not None:
                where = f"scripted call {i}"
                return off_device_message(where, call_label(args), found, "a figure of few traces")
        return None

    # a program compiled again for an abstract input it already had: never needed
    _WASTE = (
        "new function object",
        "a different function is jitted here",
        "static ",
        "the same signature was traced before",
        "the jax.jit options differ",
    )

    def _stage(self) -> str:
        return "compile" if self.measure == "compiles" else "trace"

    def _compiled(self, outcome: CallOutcome, eager: bool = True) -> bool:
        """Did the call compile a program of the caller's own (and, with ``include_eager``,
        an eager operation)?"""
        stage = self._stage()
        return any(
            (e.get("origin") == "learner" and e.get("stage") == stage)
            or (
                eager
                and self.include_eager
                and e.get("origin") == "eager"
                and e.get("stage") == "compile"
            )
            for e in outcome.traces
        )

    def _wasted(self, outcome: CallOutcome) -> int:
        """Programs compiled again for an abstract input already compiled (a new function
        object, a static value, a dropped cache; but not a ``may_be_static`` argument's
        new value): every clause of the retrace's reason says so, none a new shape,
        dtype, weak type or structure."""
        allowed = tuple(f"static argument `{name}`" for name in self.may_be_static)
        n = 0
        for e in outcome.traces:
            if e.get("origin") != "learner" or e.get("stage") != "trace":
                continue
            clauses = [
                c
                for c in str(e.get("reason") or "").split("; ")
                if c and not (c.startswith("and ") and c.endswith("more changes"))
            ]
            if (
                clauses
                and all(c.startswith(self._WASTE) for c in clauses)
                and not all(c.startswith(allowed) for c in clauses)
            ):
                n += 1
        return n

    def weigh(
        self,
        calls: list[tuple[dict[str, Any], CallOutcome]],
        theirs: Sequence[CallOutcome | None],
        shapes: list[str],
    ) -> tuple[int, list[int]]:
        """On generated inputs new shapes compile everywhere, so two things are weighed
        against the reference on the same inputs: programs compiled again for an
        abstract input already had (a fresh jit on every call, a static value); and the
        shapes on which the learner's code compiled anything, beyond those on which the
        reference's did (a program per length where the reference pads to buckets, per
        argument form where it canonicalises).  A solution split into more helpers than
        the reference, one made of eager operations, or one that compiles a helper only
        at the first input that needs it, is not charged."""
        waste = waste_ref = 0
        mine_at: dict[str, int] = {}  # shape -> first call where the learner compiled
        theirs_at: set[str] = set()  # shapes on which the reference compiled
        wasted_at: list[int] = []
        for i, ((_args, out), ref, shape) in enumerate(zip(calls, theirs, shapes), 1):
            wasted = self._wasted(out)
            if wasted:
                waste += wasted
                wasted_at.append(i)
            if ref is not None:
                waste_ref += self._wasted(ref)
                if self._compiled(ref):
                    theirs_at.add(shape)
            if shape not in mine_at and self._compiled(out):
                mine_at[shape] = i
        more_shapes = [i for shape, i in mine_at.items() if shape not in theirs_at]
        used = max(0, waste - waste_ref) + max(0, len(mine_at) - len(theirs_at))
        return used, sorted(set(wasted_at) | set(more_shapes)) if used else []

    def generated_summary(
        self, used: int, budget: int, source: str, over: str, passed: bool
    ) -> str:
        verdict = "within" if passed else "over"
        what = "compiled" if self.measure == "compiles" or self.include_eager else "traced"
        return (
            f"on {over}: your code {what} {plural(used, 'time')} more than the reference "
            f"did on the same inputs, {verdict} the budget of {budget}{source}"
        )

    def explain_excess(self, calls: list[tuple[int, dict[str, Any], CallOutcome]]) -> str:
        lines = self.extra_traces(
            [(args, out) for _, args, out in calls],
            "generated input",
            numbers=[i for i, _, _ in calls],
        )
        if self.include_eager:
            ops: dict[str, list[int]] = {}
            for i, _, out in calls:
                for e in out.traces:
                    if e.get("origin") == "eager" and e.get("stage") == "compile":
                        ops.setdefault(
                            f"`{e.get('group')}`"
                            + (f" at line {e['line']}" if e.get("line") else ""),
                            [],
                        ).append(i)
            for op, where in sorted(ops.items(), key=lambda kv: -len(kv[1]))[:3]:
                lines.append(
                    f"  eager {op} (outside jit) compiled {plural(len(where), 'time')}, first at "
                    f"generated input {where[0]}: put it inside a jitted function"
                )
        return "\n".join(lines)

    def details(self, mine: ScriptRun, ref: ScriptRun) -> dict[str, Any]:
        return {
            "functions": mine.report.get("functions", []),
            "eager": mine.report.get("eager", {}),
            "reference_functions": ref.report.get("functions", []),
            "notes": mine.report.get("notes", []),
            "per_call": [
                [e for e in o.traces if e.get("origin") == "learner"] for o in mine.outcomes
            ],
        }

    def summary(self, used: int, budget: int, source: str, over: str, passed: bool) -> str:
        what = {"traces": "trace", "compiles": "compile", "retraces": "retrace"}[self.measure]
        verdict = "within" if passed else "over"
        who = (
            "your code (eager operations included)" if self.include_eager else "your compiled code"
        )
        if self.measure == "retraces":
            again = "traced or compiled again" if self.include_eager else "traced again"
            return (
                f"{who} {again} {used} time{'' if used == 1 else 's'} over {over}, "
                f"{verdict} the budget of {budget} ({source})"
            )
        return f"{who} made {plural(used, what)} over {over}, {verdict} the budget of {budget} ({source})"

    def explain(
        self, calls: list[tuple[dict[str, Any], CallOutcome]], report: Any, passed: bool, noun: str
    ) -> str:
        lines = []
        for fn in (report or {}).get("functions", []):
            if not isinstance(fn, dict):
                continue
            line = f"  {fn.get('name')}: {plural(int(fn.get('traces', 0)), 'trace')}"
            entries = fn.get("cache_entries")
            if isinstance(entries, int):
                line += f", {plural(entries, 'cache entry', 'cache entries')}"
            lines.append(line)
            if fn.get("note"):
                lines.append(f"    {fn['note']}")
        events = _events(o for _, o in calls)
        if self.include_eager and not passed:
            again = {op: n for op, n in _eager_compiles(events).items() if n > 1}
            for op, n in sorted(again.items(), key=lambda kv: -kv[1])[:4]:
                lines.append(
                    f"  eager `{op}` (outside jit) compiled {n} times: each new shape or "
                    f"static value compiles it again; put it inside a jitted function"
                )
        if not passed:
            lines += self.extra_traces(calls, noun)
        eager_traces = sum(e.get("origin") == "eager" and e.get("stage") == "trace" for e in events)
        if eager_traces and not self.include_eager and report is not None:
            lines.append(
                f"  (not counted: {plural(eager_traces, 'trace')} of eager operations outside jit)"
            )
        return "\n".join(lines)

    @staticmethod
    def extra_traces(
        calls: list[tuple[dict[str, Any], CallOutcome]],
        noun: str = "call",
        shown: int = 4,
        numbers: list[int] | None = None,
    ) -> list[str]:
        """Each distinct cause of tracing again, once, with how often and where first
        (calls numbered ``numbers``, or from 1)."""
        seen: dict[tuple[Any, ...], list[int]] = {}
        index = {}
        for i, (_, out) in enumerate(calls, 1):
            index[i] = numbers[i - 1] if numbers else i
            for e in out.traces:
                reason = str(e.get("reason") or "")
                if (
                    e.get("origin") == "learner"
                    and e.get("stage") == "trace"
                    and reason
                    and not reason.startswith("first")
                ):
                    # the first clause is the cause; what follows only details it
                    cause = reason.split("; ")[0]
                    seen.setdefault((str(e.get("group")), cause), []).append(i)
        lines = []
        for (group, reason), where in list(seen.items())[:shown]:
            times = f"{len(where)} times, first" if len(where) > 1 else "at"
            lines.append(
                f"  {group} traced again ({times} {noun} {index[where[0]]}: "
                f"{call_label(calls[where[0] - 1][0])}): {reason}"
            )
        if len(seen) > shown:
            # said here in full, not left to a JSON report the learner may never open
            rest = list(seen.values())[shown:]
            firsts = ", ".join(str(index[where[0]]) for where in rest[:12])
            more = ", ..." if len(rest) > 12 else ""
            lines.append(
                f"  ... and {len(rest)} other causes of tracing again, first at "
                f"{noun}s {firsts}{more}"
            )
        return lines


# the sync check every task has unless it declares its own or says ``host_syncs: allowed``
DEFAULT_SYNC = {
    "id": "host_sync",
    "kind": "sync",
    "points": 0,
    # a diagnostic print moves to the host only what it prints, and the program
    # cannot use it: left in a right solution it costs no verdict (a task whose
    # lesson is host syncs declares its own check, which counts it)
    "allow": ["jax.debug.print"],
    "doc": "by default for every task: no more host syncs than the reference "
    "makes on the same inputs (none, where it makes none; jax.debug.print "
    "not counted)",
}


# a program's call into a handler the learner registered (judge/worker/custom_calls.py)
CUSTOM_CALL_CAUSE = (
    "a custom call is a handler your code registered with XLA (jax.ffi, "
    "ctypes): it runs on the host, outside the program, so its work is off "
    "the device just as a pull of the inputs would take it; write the work "
    "with jax.numpy and jax.lax"
)


@check_kind("sync")
class SyncCheck(ScriptedCheck):
    FIELDS = ScriptedCheck.FIELDS + ("allow",)
    SCRIPT_OPTIONAL = True
    # pulls made on any thread while the learner's code runs; inputs pulled to the host;
    # a custom call of the learner's own (an FFI handler), counted as one per program
    DODGES = ("thread_sync", "host_compute", "host_callback")
    ONCE_PER_INPUT = False

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        # kinds of sync not counted (as the report names them: "jax.debug.print")
        self.allow = tuple(r.get("allow", list, []))
        if not all(isinstance(k, str) for k in self.allow):
            r.fail(
                "must be a list of the kinds of sync not counted, such as jax.debug.print", "allow"
            )

    def counted(self, out: CallOutcome) -> list[dict[str, Any]]:
        return [s for s in out.syncs if s.get("kind") not in self.allow]

    def count(self, outcomes: list[CallOutcome], loaded: Sequence[Any] = ()) -> int:
        return sum(len(self.counted(o)) for o in outcomes)

    def details(self, mine: ScriptRun, ref: ScriptRun) -> dict[str, Any]:
        def counted(run: ScriptRun) -> list[dict[str, Any]]:
            return [s for s in run.syncs() if s.get("kind") not in self.allow][:50]

        return {"syncs": counted(mine), "reference_syncs": counted(ref)}

    def summary(self, used: int, budget: int, source: str, over: str, passed: bool) -> str:
        verdict = "within" if passed else "over"
        return (
            f"your code pulled values back to the host {used} time{'s' if used != 1 else ''} "
            f"over {over}, {verdict} the budget of {budget} ({source})"
        )

    def weigh(
        self,
        calls: list[tuple[dict[str, Any], CallOutcome]],
        theirs: Sequence[CallOutcome | None],
        shapes: list[str],
    ) -> tuple[int, list[int]]:
        where, used = [], 0
        for i, ((_, out), ref) in enumerate(zip(calls, theirs), 1):
            # what the reference pulls, of any kind, the learner may pull too (its
            # jax.debug.print allows a learner's float() printing the same value)
            extra = max(0, len(self.counted(out)) - (len(ref.syncs) if ref is not None else 0))
            if extra:
                used += extra
                where.append(i)
        return used, where

    def generated_summary(
        self, used: int, budget: int, source: str, over: str, passed: bool
    ) -> str:
        verdict = "within" if passed else "over"
        return (
            f"on {over}: your code pulled values back to the host {plural(used, 'time')} "
            f"more than the reference did on the same inputs, {verdict} the budget of "
            f"{budget}{source}"
        )

    def explain_excess(self, calls: list[tuple[int, dict[str, Any], CallOutcome]]) -> str:
        return self.explain(
            [(args, out) for _, args, out in calls],
            None,
            False,
            "generated input",
            [i for i, _, _ in calls],
        )

    def explain(
        self,
        calls: list[tuple[dict[str, Any], CallOutcome]],
        report: Any,
        passed: bool,
        noun: str,
        numbers: list[int] | None = None,
    ) -> str:
        if passed:
            return ""
        seen: dict[tuple[Any, ...], list[int]] = {}
        native = False
        for i, (_args, out) in enumerate(calls, 1):
            for s in self.counted(out):
                key = (s.get("line"), s.get("kind"), s.get("code"))
                seen.setdefault(key, []).append(i)
                native = native or s.get("category") == "custom_call"
        return "\n".join(
            f"  {f'line {line}' if line is not None else 'a compiled program' if 'custom call `' in str(kind) else 'no line of your file'}: "
            f"{kind} x{len(where)}"
            + (f"  `{code}`" if code else "")
            + (
                f" (first at {noun} {numbers[where[0] - 1] if numbers else where[0]}: "
                f"{call_label(calls[where[0] - 1][0])})"
                if noun != "call"
                else ""
            )
            for (line, kind, code), where in seen.items()
        ) + ("\n  " + CUSTOM_CALL_CAUSE if native else "")
