"""Performance checks over a scripted sequence of calls declared in tasks.yaml.

``retrace``: how often the learner's jitted code traced (or compiled), against a
budget: a number, or ``reference``, what the reference did on the same calls in a fresh
process.  ``sync``: how often the learner's code pulled values back to the host.
The scripted calls' values are compared with the reference's too.
"""

from __future__ import annotations

import functools

from ..values import leaves, render
from ..worker.wire import Leaf
from .base import CheckSpec, Later, check_kind
from .outcome import counterexample, failed_call, mismatch
from ..verdicts import Status, Verdict


def call_label(args) -> str:
    parts = []
    for name, value in args.items():
        if isinstance(value, Leaf) and value.kind == "key":
            parts.append(f"{name} a key")
        elif isinstance(value, Leaf):
            a = value.array
            parts.append(f"{name} {a.dtype}{list(a.shape)}" if value.kind == "jax"
                         else f"{name} {'np.' if value.kind != 'jax' else ''}{a.dtype}{list(a.shape)}")
        elif isinstance(value, (list, tuple, dict)):
            kinds = {type(l).__name__ if not isinstance(l, Leaf) else l.array.dtype.name
                     for l in leaves(value)}
            parts.append(f"{name} {type(value).__name__} of {len(value)} ({', '.join(sorted(kinds))})")
        else:
            parts.append(f"{name}={render(value)}")
    return ", ".join(parts)


class ScriptedCheck(CheckSpec):
    phase = 0
    failure_verdict = Verdict.INEFFICIENT
    FIELDS = CheckSpec.FIELDS + ("script", "budget", "slack")

    def __init__(self, r, scripts):
        super().__init__(r, scripts)
        self.script = r.get("script", str)
        if self.script not in scripts:
            r.fail(f"no script named '{self.script}' (scripts: {', '.join(scripts) or 'none'})", "script")
        budget = r.get("budget", (int, str), "reference", what="a number or 'reference'")
        if isinstance(budget, str) and budget != "reference":
            r.fail(f"expected a number or 'reference', got '{budget}'", "budget")
        if isinstance(budget, int) and budget < 0:
            r.fail("must be at least 0", "budget")
        self.budget = budget
        self.slack = int(r.number("slack", 0, low=0))

    def scripts_run(self):
        return (self.script,)

    def run(self, grading):
        mine = grading.learner_script(self.script)
        return Later(functools.partial(self.judge, grading, mine))

    def judge(self, grading, mine):
        ref = grading.reference_script(self.script)
        for i, (args, out) in enumerate(zip(mine.calls, mine.outcomes), 1):
            if not out.ok:
                return failed_call(self, grading, args, out, f"scripted call {i} of {len(mine.calls)}: ")
            problem = mismatch(grading, args, out.value, ref.outcomes[i - 1].value)
            if problem:
                return self.result(
                    "failed", f"scripted call {i} ({call_label(args)}): {problem.message}",
                    counterexample=counterexample(args, ref.outcomes[i - 1].value, out.value),
                    verdict=Verdict.WRONG_ANSWER)
        used, ref_used = self.count(mine), self.count(ref)
        budget = (ref_used if self.budget == "reference" else self.budget) + self.slack
        source = (f"the reference's {ref_used} on the same calls" if self.budget == "reference"
                  else "set by the task") + (f", plus a slack of {self.slack}" if self.slack else "")
        details = dict(self.details(mine, ref), count=used, budget=budget, reference_count=ref_used,
                       budget_source=self.budget, calls=[call_label(a) for a in mine.calls])
        passed = used <= budget
        message = self.summary(used, budget, source, len(mine.calls), passed)
        explain = self.explain(mine, passed)
        if explain:
            message += "\n" + explain
        if passed:
            return self.result(Status.PASSED, message, details=details)
        return self.failed(message, details=details)

    def count(self, run) -> int:
        raise NotImplementedError

    def details(self, mine, ref) -> dict:
        return {}

    def summary(self, used, budget, source, n_calls, passed) -> str:
        raise NotImplementedError

    def explain(self, run, passed) -> str:
        return ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@check_kind("retrace")
class RetraceCheck(ScriptedCheck):
    FIELDS = ScriptedCheck.FIELDS + ("measure", "include_eager")

    def __init__(self, r, scripts):
        super().__init__(r, scripts)
        self.measure = r.get("measure", str, "traces")
        if self.measure not in ("traces", "compiles", "retraces"):
            r.fail("must be 'traces', 'compiles' or 'retraces'", "measure")

        # eager ops compile too (an unjitted lax.scan compiles once per length): a task
        # whose point is "no recompiles at all" counts them
        self.include_eager = r.get("include_eager", bool, False)

    def count(self, run) -> int:
        eager = run.report.get("eager", {})
        eager = eager if isinstance(eager, dict) else {}
        if self.measure == "retraces":
            # traces beyond each function's first: two helpers each traced once are no
            # worse than one, so a solution split differently from the reference's is fair
            total = sum(len(f.get("retraces") or []) for f in run.report.get("functions", [])
                        if isinstance(f, dict))
            if self.include_eager:   # an eager op compiled again: a new length for lax.scan, ...
                ops = eager.get("ops", {})
                total += sum(max(0, n - 1) for n in ops.values() if isinstance(n, int)) \
                    if isinstance(ops, dict) else 0
            return total
        key = "learner_traces" if self.measure == "traces" else "learner_compiles"
        value = run.report.get(key, 0)
        total = value if isinstance(value, int) else 0
        if self.include_eager:
            extra = eager.get(self.measure, 0)
            total += extra if isinstance(extra, int) else 0
        return total

    def details(self, mine, ref):
        return {"functions": mine.report.get("functions", []), "eager": mine.report.get("eager", {}),
                "reference_functions": ref.report.get("functions", []),
                "notes": mine.report.get("notes", []),
                "per_call": [[e for e in o.traces if e.get("origin") == "learner"]
                             for o in mine.outcomes]}

    def summary(self, used, budget, source, n_calls, passed):
        what = {"traces": "trace", "compiles": "compile", "retraces": "retrace"}[self.measure]
        verdict = "within" if passed else "over"
        who = "your code (eager operations included)" if self.include_eager else "your jitted code"
        if self.measure == "retraces":
            again = "traced or compiled again" if self.include_eager else "traced again"
            return (f"{who} {again} {used} time{'' if used == 1 else 's'} over {n_calls} scripted "
                    f"calls, {verdict} the budget of {budget} ({source})")
        return (f"{who} made {_plural(used, what)} over {n_calls} scripted calls, "
                f"{verdict} the budget of {budget} ({source})")

    def explain(self, run, passed):
        lines = []
        for fn in run.report.get("functions", []):
            if not isinstance(fn, dict):
                continue
            line = f"  {fn.get('name')}: {_plural(int(fn.get('traces', 0)), 'trace')}"
            entries = fn.get("cache_entries")
            if isinstance(entries, int):
                line += f", {_plural(entries, 'cache entry').replace('entrys', 'entries')}"
            lines.append(line)
            if fn.get("note"):
                lines.append(f"    {fn['note']}")
        if not passed:
            lines += self.extra_traces(run)
        eager = run.report.get("eager", {})
        if isinstance(eager, dict) and self.include_eager and not passed:
            again = {op: n for op, n in (eager.get("ops") or {}).items() if isinstance(n, int) and n > 1}
            for op, n in sorted(again.items(), key=lambda kv: -kv[1])[:4]:
                lines.append(f"  eager `{op}` (outside jit) compiled {n} times: each new shape or "
                             f"static value compiles it again; put it inside a jitted function")
        if isinstance(eager, dict) and eager.get("traces") and not self.include_eager:
            lines.append(f"  (not counted: {_plural(int(eager['traces']), 'trace')} of eager "
                         f"operations outside jit)")
        return "\n".join(lines)

    @staticmethod
    def extra_traces(run, shown: int = 4) -> list[str]:
        """Each distinct cause of tracing again, once, with how often and where first."""
        seen: dict[tuple, list[int]] = {}
        for i, out in enumerate(run.outcomes, 1):
            for e in out.traces:
                reason = str(e.get("reason") or "")
                if e.get("origin") == "learner" and e.get("stage") == "trace" and reason \
                        and not reason.startswith("first"):
                    # the first clause is the cause; what follows only details it
                    cause = reason.split("; ")[0]
                    seen.setdefault((str(e.get("group")), cause), []).append(i)
        lines = []
        for (group, reason), calls in list(seen.items())[:shown]:
            times = f"{len(calls)} times, first" if len(calls) > 1 else "at"
            lines.append(f"  {group} traced again ({times} call {calls[0]}: "
                         f"{call_label(run.calls[calls[0] - 1])}): {reason}")
        if len(seen) > shown:
            lines.append(f"  ... and {len(seen) - shown} other reasons (see the JSON report's details)")
        return lines


@check_kind("sync")
class SyncCheck(ScriptedCheck):
    def count(self, run) -> int:
        return len(run.syncs())

    def details(self, mine, ref):
        return {"syncs": mine.syncs()[:50], "reference_syncs": ref.syncs()[:50]}

    def summary(self, used, budget, source, n_calls, passed):
        verdict = "within" if passed else "over"
        return (f"your code pulled values back to the host {used} time{'s' if used != 1 else ''} "
                f"over {n_calls} scripted calls, {verdict} the budget of {budget} ({source})")

    def explain(self, run, passed):
        if passed:
            return ""
        seen: dict[tuple, int] = {}
        for s in run.syncs():
            key = (s.get("line"), s.get("kind"), s.get("code"))
            seen[key] = seen.get(key, 0) + 1
        return "\n".join(f"  line {line}: {kind} x{n}" + (f"  `{code}`" if code else "")
                         for (line, kind, code), n in seen.items())
