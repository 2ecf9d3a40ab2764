"""``jaxpr``: how big the learner's traced program is, and which primitives it uses.

On every call of a script the worker traces the learner's function with
``jax.make_jaxpr`` (Python numbers static), counts its equations, those inside nested
programs included (``jit``, ``scan``, ``while``, ``cond`` branches, ``checkpoint``,
custom derivative rules; the body of a scan unrolled u times counts u times, as it is
lowered), and runs the traced program itself (``base.run_traced``): its value must
be the reference's, so the program measured is the one that computes the answer (a
function that notices it is being traced cannot show the judge a small wrong program).

Budgets (``budget:``):

* ``no_growth``: the size does not grow with the calls' size beyond what a right answer
  needs.  Between any two calls, from size s to a larger size S (s > 0), the program may
  gain at most ``slack + per_doubling * log2(S / s)`` equations: a program that does not
  depend on the size passes, one that grows with its logarithm (a parallel
  ``lax.associative_scan``, 10 to 25 equations a level) passes, and a Python loop
  unrolled over the size (at least one equation per step) fails once the script spans a
  wide enough range (8 to 200: 192 equations gained against 32 * 4.6 = 148 allowed).  A
  smaller call (k = 0) may have a smaller program.
* a number: at most that many equations on every call (plus ``slack``);
* ``reference``: at most the reference's count on the same call, plus ``slack``.

``forbid`` and ``require`` list primitive names (``while``, ``scan``, ``pure_callback``,
...), or map each to the usual cause of the failure: a forbidden one must appear nowhere
in the program, a required one in the program of every call whose size is not 0.
``forbid_dtypes`` lists dtypes (``float64``) that no value computed in the program may
have.

Whatever the task lists, a host callback (``jax.pure_callback``, ``io_callback``,
``jax.debug.callback``) the reference's program does not make fails the check: it is one
equation however much work it hands to Python on the host (``callbacks.py``; nested ones,
inside ``scan``, ``cond`` or a custom derivative rule, count too).

Every call made for values must also read on the device each input the reference's
call read (the off-device rule, ``on_device.py``): an answer computed with NumPy and
handed back with ``jnp.asarray`` runs programs of almost no work.

The trace is the judge's own; a function can tell it from a call
(``isinstance(x, jax.core.Tracer)``) and run other work when called (a Python loop of
eager operations where the trace shows one vmap).  So the instrument also calls the
function for values and the worker records the device programs that call ran
(``judge/worker/executions.py``): each program's equations (those of the jaxpr it was
compiled from; an eager operation is one) and primitives, times the number of times it
ran.  Where the calls ran more than the trace shows, the figures weighed are the calls'.
Where they could not be recorded (a program compiled ahead of time ran, whose jaxpr the
worker never saw, or the record is missing), the figure is unknown: the check fails
closed.  Where the call ran exactly the traced program (one program, compiled from the
very jaxpr of the trace, on the call's own arrays, its outputs the call's value:
``Executions.ran_as_traced``), the call's value is the traced program's and is kept, and
the trace is not run again.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ..verdicts import Status, Verdict
from . import callbacks as host
from .base import ScriptMeasureCheck, bind_tracing, check_kind, instrument, run_traced
from .outcome import plural

if TYPE_CHECKING:
    from ..bank import FieldReader
    from ..report import CheckResult
    from .base import GradingView, Measured, ValueCall

BUDGETS = ("no_growth", "reference")
RAN_MARGIN, RAN_SLACK = 1.25, 4  # when what the calls ran replaces the trace's count
SIZE = re.compile(r"^(?:len\((?P<len>\w+)\)|(?P<arg>\w+)(?:\.shape\[(?P<axis>\d+)\])?)$")


def measure_program(ctx, args, kwargs, options, lines_sent=40):  # type: ignore[no-untyped-def]  # shipped
    """Runs in the worker: the traced program's size, its primitives, and the lines of
    the learner's file its equations come from; the program's own value is kept."""
    bound = ctx.bound
    make_jaxpr, jaxprs_in_params = bound["make_jaxpr"], bound["jaxprs_in_params"]
    tree_structure, getline, realpath = bound["tree_structure"], bound["getline"], bound["realpath"]
    fn, arrays = ctx.traceable(args, kwargs)
    closed, out_shape = make_jaxpr(fn, return_shape=True)(*arrays)

    mine = realpath(ctx.source_file) if ctx.source_file else None
    ours: dict = {}  # type: ignore[type-arg]  # shipped: names no typing  # file name -> is it the learner's file
    primitives: dict = {}  # type: ignore[type-arg]  # shipped: names no typing
    dtypes: dict = {}  # type: ignore[type-arg]
    lines: dict = {}  # type: ignore[type-arg]
    first_line: dict = {}  # type: ignore[type-arg]
    unrolled = [1]  # the most copies of a scan body

    def line_of(eqn):  # type: ignore[no-untyped-def]  # shipped
        """The innermost line of the learner's file in the equation's traceback (not
        jax's own "user frame": the judge's sync counter wraps some jax functions)."""
        if mine is None:
            return None
        try:
            for frame in eqn.source_info.traceback.frames:
                name = frame.file_name
                if name not in ours:
                    ours[name] = realpath(name) == mine
                if ours[name]:
                    return int(frame.line_num)
        except Exception:
            pass
        return None

    def count(jaxpr, depth=0):  # type: ignore[no-untyped-def]  # shipped
        if depth > 100:
            ctx.unmeasurable("the program nests more than 100 levels deep")
        total = 0
        for eqn in jaxpr.eqns:
            total += 1
            name = str(eqn.primitive.name)
            primitives[name] = primitives.get(name, 0) + 1
            line = line_of(eqn)  # type: ignore[no-untyped-call]
            if line is not None:
                lines[line] = lines.get(line, 0) + 1
                first_line.setdefault(name, line)
            for var in eqn.outvars:
                dtype = str(getattr(getattr(var, "aval", None), "dtype", ""))
                if dtype:
                    dtypes[dtype] = dtypes.get(dtype, 0) + 1
                    if line is not None:
                        first_line.setdefault("dtype:" + dtype, line)
            # a scan unrolled u times is lowered with u copies of its body
            copies = 1
            if name == "scan":
                unroll, length = eqn.params.get("unroll", 1), eqn.params.get("length", 1)
                if isinstance(unroll, bool):
                    unroll = length if unroll else 1
                if isinstance(unroll, int) and isinstance(length, int):
                    copies = max(1, min(unroll, length))
            if copies > 1:
                unrolled[0] = max(unrolled[0], copies)
            for sub in jaxprs_in_params(eqn.params):
                before = (dict(primitives), dict(lines))
                inner = count(sub, depth + 1)  # type: ignore[no-untyped-call]
                for tally, start in zip((primitives, lines), before):  # the copies count too
                    for k, n in tally.items():
                        tally[k] = start.get(k, 0) + (n - start.get(k, 0)) * copies
                total += inner * copies
        return total

    equations = count(closed.jaxpr)  # type: ignore[no-untyped-call]
    # the function called for values, as the other checks call it: the programs it ran;
    # where it ran exactly the traced program, its value is that program's (kept), and
    # the trace need not be run again
    value, executed = ctx.called(args, kwargs)
    if ctx.ran_as_traced(closed, arrays, value) is not None:
        ctx.keep(value)
    else:
        flat = run_traced(bound, closed, arrays)  # type: ignore[no-untyped-call]
        if flat is not None:
            ctx.keep(tree_structure(out_shape).unflatten(flat))
    if isinstance(executed, dict):
        executed = {
            k: executed.get(k)
            for k in ("executions", "distinct", "equations", "primitives", "opaque")
        }
    busiest = sorted(lines.items(), key=lambda kv: -kv[1])[:lines_sent]
    code = (
        {str(line): getline(ctx.source_file, line).strip()[:160] for line, _ in busiest[:8]}
        if ctx.source_file
        else {}
    )
    return {
        "executed": executed,
        "equations": equations,
        "primitives": primitives,
        "dtypes": dtypes,
        "lines": {str(line): n for line, n in busiest},
        "code": code,
        "first_line": {k: v for k, v in first_line.items()},
        "unrolled": unrolled[0],
    }


def _listing(values: list[str], conjunction: str = "and") -> str:
    return (
        values[0] if len(values) == 1 else ", ".join(values[:-1]) + f" {conjunction} " + values[-1]
    )


@check_kind("jaxpr")
class JaxprCheck(ScriptMeasureCheck):
    FIELDS = ScriptMeasureCheck.FIELDS + (
        "budget",
        "slack",
        "per_doubling",
        "forbid",
        "require",
        "forbid_dtypes",
        "size",
        "size_name",
    )
    INSTRUMENT = instrument(measure_program, setup=bind_tracing, helpers=(run_traced,))
    DODGES = ("host_callback", "trace_switch", "host_compute")
    doing = "traced with jax.make_jaxpr"
    OFF_DEVICE_FIGURE = "a small program"
    error_hint = (
        "The judge measures the program jax traces from your function: code that "
        "needs concrete values (np.asarray(x), float(x), an `if` on an array's "
        "value) cannot be traced; use jax.numpy and jax.lax."
    )
    usual_cause = (
        "a Python loop over an array dimension is unrolled into the program when "
        "it is traced, one copy of its body per step; use lax.scan, "
        "lax.fori_loop or vmap"
    )

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        budget = r.get("budget", (int, str), None, what="no_growth, reference or a number")
        if isinstance(budget, str) and budget not in BUDGETS:
            r.fail(f"expected no_growth, reference or a number, got '{budget}'", "budget")
        if isinstance(budget, int) and budget < 0:
            r.fail("must be at least 0", "budget")
        self.budget = budget
        self.slack = int(r.number("slack", 0, low=0))
        self.per_doubling = float(r.number("per_doubling", 32, low=0))
        self.reasons: dict[str, str] = {}  # primitive -> the usual cause, as the task says
        self.forbid = self._primitives(r, "forbid")
        self.require = self._primitives(r, "require")
        self.forbid_dtypes = r.get("forbid_dtypes", list, [])
        if not all(isinstance(d, str) and d for d in self.forbid_dtypes):
            r.fail("must be a list of dtype names (float64, int64, ...)", "forbid_dtypes")
        if budget is None and not (self.forbid or self.require or self.forbid_dtypes):
            r.fail(
                "a jaxpr check needs a budget (no_growth, reference or a number), "
                "forbid, forbid_dtypes or require",
                "budget",
            )
        self.size = r.get("size", str, None)
        if self.size is not None:
            m = SIZE.match(self.size)
            name = m and (m.group("len") or m.group("arg"))
            if not m or name not in self.arg_names:
                r.fail(
                    f"expected ARG, len(ARG) or ARG.shape[AXIS] for an argument of the "
                    f"script's calls ({', '.join(self.arg_names)}), got '{self.size}'",
                    "size",
                )
        self.size_name = r.get("size_name", str, self.size or "size")

    def _primitives(self, r: FieldReader, key: str) -> list[str]:
        """A list of primitive names, or a mapping of each name to why (what the learner
        usually did to get it, or to miss it)."""
        names = r.get(key, (list, dict), [])
        why = names if isinstance(names, dict) else {}
        if not all(isinstance(n, str) and n for n in names) or not all(
            isinstance(v, str) for v in why.values()
        ):
            r.fail(
                "must be a list of primitive names (scan, while, dot_general, ...), or a "
                "mapping of each name to the usual cause",
                key,
            )
        self.reasons.update(why)
        return list(names)

    # ------------------------------------------------------------ sizes of calls
    def size_of(self, args: dict[str, Any]) -> int:
        from ..values import leaves
        from ..worker.wire import Leaf

        if self.size is None:  # the largest dimension or list length of the call
            found = [0]
            for value in args.values():
                if isinstance(value, list):
                    found.append(len(value))
                found += [
                    max(l.array.shape, default=0) for l in leaves(value) if isinstance(l, Leaf)
                ]
            return max(found)
        m = cast("re.Match[str]", SIZE.match(self.size))  # the size was checked as read
        if m.group("len"):
            return len(args[m.group("len")])
        value = args[m.group("arg")]
        if m.group("axis") is not None:
            shape = value.array.shape if isinstance(value, Leaf) else ()
            axis = int(m.group("axis"))
            return int(shape[axis]) if axis < len(shape) else 0
        if isinstance(value, Leaf):
            return int(value.array.size)
        return len(value) if isinstance(value, (list, tuple, dict)) else int(value)

    def at(self, size: int) -> str:
        return f"{self.size_name}={size}"

    # ------------------------------------------------------------ the verdict
    def judge(self, grading: GradingView, calls: list[Measured]) -> CheckResult:
        unknown = self.unrecorded(calls)
        if unknown is not None:
            return unknown
        calls, switched = self.what_ran(calls)
        sizes = [self.size_of(c.args) for c in calls]
        counts = [int(c.mine["equations"]) for c in calls]
        refs = [int(c.reference["equations"]) for c in calls]
        details = {
            "calls": [
                {
                    "call": c.label,
                    "size": s,
                    "equations": n,
                    "reference_equations": r,
                    "primitives": dict(
                        sorted(c.mine["primitives"].items(), key=lambda kv: -kv[1])[:12]
                    ),
                }
                for c, s, n, r in zip(calls, sizes, counts, refs)
            ],
            "budget": self.budget,
            "slack": self.slack,
            "size": self.size_name,
        }
        if self.budget == "no_growth":
            details["per_doubling"] = self.per_doubling
        problems = [
            p
            for p in (
                self.called_back(calls, sizes),
                self.forbidden(calls, sizes),
                self.forbidden_dtype(calls, sizes),
                self.missing(calls, sizes),
                self.over_budget(calls, sizes, counts, refs),
            )
            if p
        ]
        if problems:
            if switched:
                c = max(switched, key=lambda m: m.mine["equations"] - m.mine["traced_equations"])
                problems.insert(
                    0,
                    (
                        f"your function did different work when called than when traced: at "
                        f"scripted call {c.index} ({c.label}) the judge's trace of it has "
                        f"{plural(c.mine['traced_equations'], 'equation')}, but calling it ran "
                        f"{plural(int(c.mine['executed'].get('executions') or 0), 'device program')} "
                        f"with {plural(c.mine['equations'], 'equation')} in all; the figures below "
                        f"are what your calls ran (usual cause: code that checks "
                        f"isinstance(x, jax.core.Tracer) and does other work when called)."
                    ),
                )
            return self.failed("\n".join(problems), details=details)
        values = self.value_calls(grading)
        problem = self.value_calls_off_device(values) or self.value_calls_over(
            values, sizes, counts, refs
        )
        if problem:
            return self.failed(problem, details=details)
        return self.result(Status.PASSED, self.summary(sizes, counts, refs), details=details)

    def value_calls_over(
        self, values: list[ValueCall], sizes: list[int], counts: list[int], refs: list[int]
    ) -> str:
        """The first value call (a property check's, a script's run) whose programs
        break the check's own budget, in words ("": none does).  The scripted calls
        weigh the trace and the instrument's own call, which comes right after it;
        every other call the judge made for values is weighed here, by the equations
        its programs ran: against the budget's number, the reference's (its call on the
        same input, at least its scripted calls'), or (``no_growth``) what the scripted calls of a size at most the
        call's allow at its size.  Eager operations around a right answer add a few
        equations: a call fails where it is clearly over (``RAN_MARGIN``, ``RAN_SLACK``)."""
        scripted = [(s, n) for s, n in zip(sizes, counts) if s > 0]
        for v in values:
            theirs = v.reference.get("equations")
            if theirs is None:  # the reference's figure unknown: nothing to weigh against
                continue
            mine, primitives = v.mine.get("equations"), v.mine.get("primitives") or {}
            if mine is None:
                return (
                    f"at {v.where} ({v.label}), the judge cannot know how big the programs "
                    f"your function ran when called are (a program compiled ahead of time "
                    f"ran, whose traced program the judge never saw, or the record is "
                    f"missing), so the check fails. Call jitted functions, not compiled "
                    f"objects, and leave jax's dispatch as it is."
                )
            theirs_used = v.reference.get("primitives") or {}
            used = [
                p
                for p in [*self.forbid, *host.COUNTED]
                if primitives.get(p) and (p in self.forbid or not theirs_used.get(p))
            ]
            if used:
                return (
                    f"at {v.where} ({v.label}), {self.VALUE_CALLS_NOTE}: the programs "
                    f"calling it ran use `{used[0]}` "
                    f"({plural(int(primitives[used[0]]), 'time')}; the reference's call on "
                    f"the same input: {theirs_used.get(used[0]) or 'none'}), which the "
                    f"judge's trace of it did not show."
                    + (
                        (self.stated_cause(used[0]) if used[0] in self.forbid else "")
                        or f"\nUsual cause: {self.VALUE_CALLS_CAUSE}."
                    )
                )
            size = self.size_of(v.args)
            if self.budget == "no_growth":
                below = [
                    n + self.slack + self.per_doubling * math.log2(size / s)
                    for s, n in scripted
                    if s <= size
                ]
                if not below:  # smaller than every scripted call: may be smaller
                    continue
                allowed, basis = min(below), "what the scripted calls allow at that size"
            elif self.budget == "reference":  # at least the reference's scripted calls'
                allowed = max(int(theirs), *refs) + self.slack
                basis = "the reference's budget"
            elif isinstance(self.budget, int):
                allowed, basis = self.budget + self.slack, "the task's budget"
            else:
                continue
            if int(mine) > RAN_MARGIN * allowed + RAN_SLACK:
                return (
                    f"at {v.where} ({v.label}, {self.at(size)}), {self.VALUE_CALLS_NOTE}: "
                    f"calling it ran {plural(int(v.mine.get('executions') or 0), 'device program')} "
                    f"with {plural(int(mine), 'equation')} in all (the reference's call on the "
                    f"same input: {theirs}), where {basis} is {int(allowed)}, while the "
                    f"scripted calls the judge traced and measured were within budget.\n"
                    f"Usual cause: {self.VALUE_CALLS_CAUSE}; or {self.cause}."
                )
        return ""

    def unrecorded(self, calls: list[Measured]) -> CheckResult | None:
        """Fail closed where what the calls ran is not known."""
        for c in calls:
            if "executed" not in c.reference:  # figures made without the recorder
                continue
            theirs, mine = c.reference.get("executed"), c.mine.get("executed")
            if not isinstance(theirs, dict) or theirs.get("equations") is None:
                return self.result(
                    Status.ERROR,
                    "the judge could not record the device "
                    "programs the reference's calls ran: the judge is at fault",
                    verdict=Verdict.JUDGE_ERROR,
                )
            if not isinstance(mine, dict) or mine.get("equations") is None:
                opaque = mine.get("opaque") if isinstance(mine, dict) else None
                if opaque:  # a program it cannot read into: an export, a learner's lowering
                    return self.failed(
                        f"at scripted call {c.index} ({c.label}), {opaque}, so this step's "
                        f"check cannot pass: the figure is unknown. Call the function itself "
                        f"(jitted), not an exported program or a primitive of your own."
                    )
                why = (
                    "a program compiled ahead of time (jit(...).lower(...).compile()) ran, "
                    "whose traced program the judge never saw"
                    if isinstance(mine, dict)
                    else "the record of what the call ran is missing"
                )
                return self.failed(
                    f"at scripted call {c.index} ({c.label}), the judge cannot know how big "
                    f"the programs your function ran are: {why}. The figure is unknown, so "
                    f"the check fails. Call jitted functions, not compiled objects, and "
                    f"leave jax's dispatch as it is."
                )
        return None

    @staticmethod
    def what_ran(calls: list[Measured]) -> tuple[list[Measured], list[Measured]]:
        """Each call with the figures weighed: the trace's, or, where calling the
        function ran more equations than its trace shows, the calls' (and the calls
        switched so)."""
        out: list[Measured] = []
        switched: list[Measured] = []
        for c in calls:
            ran = c.mine.get("executed")
            traced = int(c.mine["equations"])
            # eager operations around a right answer add an equation or two: what the
            # calls ran is weighed where it is clearly more than the trace
            if (
                isinstance(ran, dict)
                and ran.get("equations") is not None
                and int(ran["equations"]) > RAN_MARGIN * traced + RAN_SLACK
            ):
                mine = dict(
                    c.mine,
                    equations=int(ran["equations"]),
                    traced_equations=traced,
                    primitives={
                        k: max(int(v), int(c.mine["primitives"].get(k, 0)))
                        for k, v in (ran.get("primitives") or {}).items()
                    },
                )
                for k, v in c.mine["primitives"].items():
                    mine["primitives"].setdefault(k, v)
                c = replace(c, mine=mine)
                switched.append(c)
            out.append(c)
        return out, switched

    def program_sizes(self, sizes: list[int], counts: list[int]) -> str:
        by_size: dict[int, set[int]] = {}
        for s, n in zip(sizes, counts):
            by_size.setdefault(s, set()).add(n)
        if len({n for ns in by_size.values() for n in ns}) == 1:
            return f"{plural(counts[0], 'equation')} at {self.size_name}=" + _listing(
                [str(s) for s in sorted(by_size)]
            )
        # calls of one size with programs of different sizes: each of them
        parts = [
            f"{' or '.join(str(n) for n in sorted(ns))} at {self.at(s)}"
            for s, ns in sorted(by_size.items())
        ]
        return _listing([parts[0].replace(" at ", " equations at ", 1)] + parts[1:])

    def summary(self, sizes: list[int], counts: list[int], refs: list[int]) -> str:
        text = (
            f"your program has {self.program_sizes(sizes, counts)} "
            f"(the reference's: {self.program_sizes(sizes, refs)})"
        )
        if self.budget == "no_growth":
            text += f"; it does not grow with {self.size_name} beyond what a right answer needs"
        elif self.budget is not None:
            text += f", within the budget of {self.limit_words(sizes, refs)}"
        if self.forbid:
            text += f"; no {_listing([f'`{p}`' for p in self.forbid], 'or')}"
        if self.forbid_dtypes:
            text += f"; no {_listing(self.forbid_dtypes, 'or')} values"
        if self.require:
            text += f"; it uses {_listing([f'`{p}`' for p in self.require])}"
        return text

    def limit_words(self, sizes: list[int], refs: list[int]) -> str:
        slack = f" plus a slack of {self.slack}" if self.slack else ""
        if self.budget == "reference":
            return f"the reference's count on each call{slack}"
        return f"{self.budget} equations{slack} (set by the task)"

    def over_budget(
        self, calls: list[Measured], sizes: list[int], counts: list[int], refs: list[int]
    ) -> str:
        if self.budget is None:
            return ""
        if self.budget == "no_growth":
            return self.growth(calls, sizes, counts, refs)
        for c, s, n, r in zip(calls, sizes, counts, refs):
            limit = (r if self.budget == "reference" else self.budget) + self.slack
            if n > limit:
                source = (
                    f"the reference's {r}"
                    if self.budget == "reference"
                    else f"the task's budget of {self.budget}"
                ) + (f" plus a slack of {self.slack}" if self.slack else "")
                return (
                    f"your program has {plural(n, 'equation')} at {self.at(s)} "
                    f"(scripted call {c.index}: {c.label}), over {source}"
                    f"{self.biggest(c)}.\nUsual cause: {self.cause}."
                )
        return ""

    def growth(
        self, calls: list[Measured], sizes: list[int], counts: list[int], refs: list[int]
    ) -> str:
        worst = None
        for i, (si, ni) in enumerate(zip(sizes, counts)):
            for j, (sj, nj) in enumerate(zip(sizes, counts)):
                if 0 < si < sj:
                    allowed = self.slack + self.per_doubling * math.log2(sj / si)
                    excess = (nj - ni) - allowed
                    if excess > 0 and (worst is None or excess > worst[0]):
                        worst = (excess, i, j, allowed)
        if worst is None:
            return ""
        _, i, j, allowed = worst
        small, large = calls[i], calls[j]
        text = (
            f"your program grows with {self.size_name}: it has "
            f"{self.program_sizes(sizes, counts)} (the reference's: "
            f"{self.program_sizes(sizes, refs)}). From {self.at(sizes[i])} to "
            f"{self.at(sizes[j])} it gains {counts[j] - counts[i]} equations, where a "
            f"program that does not grow with {self.size_name}, or grows with its "
            f"logarithm, gains at most {int(allowed)}."
        )
        grew = self.grown(small.mine["primitives"], large.mine["primitives"])
        if grew:
            name, before, after = grew
            text += f" `{name}` grew most, from {before} to {after}"
            line = self.grown_line(small.mine, large.mine)
            text += f"; most of the new equations come from {line}." if line else "."
        copies = large.mine.get("unrolled", 1)
        if copies > max(small.mine.get("unrolled", 1), 1):
            text += (
                f" A scan (or fori_loop) in it is unrolled into {copies} copies of its "
                f"body at {self.at(sizes[j])}: unroll=True copies the body once per step."
            )
        return text + f"\nUsual cause: {self.cause}."

    @staticmethod
    def grown(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, Any, Any] | None:
        diffs = [(after.get(k, 0) - before.get(k, 0), k) for k in set(before) | set(after)]
        diffs = [d for d in diffs if d[0] > 0]
        if not diffs:
            return None
        _, name = max(diffs, key=lambda d: (d[0], d[1]))
        return name, before.get(name, 0), after.get(name, 0)

    @staticmethod
    def grown_line(before: dict[str, Any], after: dict[str, Any]) -> str:
        old, new = before.get("lines", {}), after.get("lines", {})
        diffs = [(n - old.get(line, 0), line) for line, n in new.items()]
        diffs = [d for d in diffs if d[0] > 0]
        if not diffs:
            return ""
        _, line = max(diffs, key=lambda d: (d[0], -int(d[1])))
        code = after.get("code", {}).get(line)
        return f"line {line} of your file" + (f": `{code}`" if code else "")

    @staticmethod
    def biggest(call: Measured) -> str:
        prims = sorted(call.mine["primitives"].items(), key=lambda kv: -kv[1])[:3]
        text = "; most common: " + ", ".join(f"`{k}` x{n}" for k, n in prims) if prims else ""
        lines = sorted(call.mine.get("lines", {}).items(), key=lambda kv: -kv[1])
        if lines:
            line, n = lines[0]
            code = call.mine.get("code", {}).get(line)
            text += f"; {n} of them from line {line} of your file" + (f": `{code}`" if code else "")
        return text

    def called_back(self, calls: list[Measured], sizes: list[int]) -> str:
        """A host callback the reference does not make (whatever the task forbids)."""
        for c, s in zip(calls, sizes):
            theirs = {p: int(c.reference.get("primitives", {}).get(p, 0)) for p in host.COUNTED}
            made = [
                host.Made(p, int(n), c.mine.get("first_line", {}).get(p))
                for p, n in c.mine["primitives"].items()
                if p in host.COUNTED
            ]
            # one the task forbids gets the task's own words, from forbidden()
            found = [m for m in host.extra(made, theirs) if m.primitive not in self.forbid]
            if found:
                return host.failure(
                    found,
                    theirs,
                    f"your program at {self.at(s)} (scripted call {c.index}: {c.label})",
                )
        return ""

    def forbidden(self, calls: list[Measured], sizes: list[int]) -> str:
        for c, s in zip(calls, sizes):
            used = [p for p in self.forbid if c.mine["primitives"].get(p)]
            if used:
                p = used[0]
                line = c.mine.get("first_line", {}).get(p)
                code = c.mine.get("code", {}).get(str(line)) if line else None
                where = (
                    f", first from line {line} of your file" + (f": `{code}`" if code else "")
                    if line
                    else ""
                )
                theirs = c.reference.get("primitives", {}).get(p, 0)
                return (
                    f"your program uses `{p}` ({plural(c.mine['primitives'][p], 'time')} at "
                    f"{self.at(s)}{where}; the reference's: {theirs or 'none'}), which this "
                    f"task rules out "
                    f"(forbidden: {', '.join(f'`{f}`' for f in self.forbid)})."
                    + self.stated_cause(p)
                )
        return ""

    def forbidden_dtype(self, calls: list[Measured], sizes: list[int]) -> str:
        for c, s in zip(calls, sizes):
            used = [d for d in self.forbid_dtypes if c.mine.get("dtypes", {}).get(d)]
            if used:
                d = used[0]
                line = c.mine.get("first_line", {}).get("dtype:" + d)
                code = c.mine.get("code", {}).get(str(line)) if line else None
                where = (
                    f", first from line {line} of your file" + (f": `{code}`" if code else "")
                    if line
                    else ""
                )
                cause = (
                    f"\nUsual cause: 64-bit mode turned on (jax_enable_x64) and values "
                    f"converted to {d}; accelerators run 64-bit arithmetic slowly or not at "
                    f"all, so keep the computation in 32 bits."
                    if d.endswith("64")
                    else self.stated_cause(d)
                )
                return (
                    f"your program computes in {d} ({plural(c.mine['dtypes'][d], 'value')} "
                    f"at {self.at(s)}{where}), which this task rules out (forbidden: "
                    f"{', '.join(self.forbid_dtypes)})." + cause
                )
        return ""

    def missing(self, calls: list[Measured], sizes: list[int]) -> str:
        for c, s in zip(calls, sizes):
            if s == 0:
                continue
            absent = [p for p in self.require if not c.mine["primitives"].get(p)]
            if absent:
                top = sorted(c.mine["primitives"].items(), key=lambda kv: -kv[1])[:6]
                theirs = c.reference.get("primitives", {}).get(absent[0], 0)
                return (
                    f"your program at {self.at(s)} has no `{absent[0]}` (the reference's: "
                    f"{theirs}), which this task requires (yours has: "
                    f"{', '.join(f'`{k}` x{n}' for k, n in top) or 'nothing'})."
                    + self.stated_cause(absent[0])
                )
        return ""

    def stated_cause(self, primitive: str) -> str:
        """For a forbidden or missing primitive only the task knows the usual cause."""
        why = self.reasons.get(primitive) or self._cause or self.doc
        return f"\nUsual cause: {why.rstrip('.')}." if why else ""
