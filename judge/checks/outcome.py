"""Shared wording: a call as a learner would write it, and a failed call as a result."""

from __future__ import annotations

from typing import Any

from ..compare import compare
from ..specs import data_leaves
from ..values import display, render
from ..verdicts import Status, Verdict


def call_text(entrypoint: str, args: dict[str, Any]) -> str:
    return f"{entrypoint}(" + ", ".join(f"{k}={render(v)}" for k, v in args.items()) + ")"


def counterexample(args: dict[str, Any], expected=..., actual=...) -> dict:
    out: dict = {"args": {k: display(v) for k, v in args.items()}}
    if expected is not ...:
        out["expected"] = display(expected)
    if actual is not ...:
        out["actual"] = display(actual)
    return out


def failed_call(check, grading, args: dict[str, Any], outcome, context: str = ""):
    """A CheckResult for a call that raised, timed out, crashed or ran out of memory."""
    if outcome.message.startswith("not run:"):       # the grading stopped calling it
        return check.result("error", outcome.message, verdict=outcome.verdict)
    if outcome.verdict == Verdict.WRONG_ANSWER:       # it answered, wrongly (an input changed)
        return check.result(Status.FAILED, f"{context}{call_text(grading.task.entrypoint, args)}: "
                            f"{outcome.message}", counterexample=counterexample(args),
                            verdict=Verdict.WRONG_ANSWER)
    what = {Verdict.TIME_LIMIT_EXCEEDED: "ran out of time", Verdict.MEMORY_LIMIT_EXCEEDED: "ran out of memory",
            Verdict.RUNTIME_ERROR: "failed"}.get(outcome.verdict, "failed")
    message = f"{context}{call_text(grading.task.entrypoint, args)} {what}: {outcome.message}"
    details = {"traceback": outcome.traceback} if outcome.traceback else {}
    return check.result("error", message, counterexample=counterexample(args),
                        details=details, verdict=outcome.verdict)


def mismatch(grading, args, actual, expected):
    task = grading.task
    return compare(actual, expected, task.result, task.tolerance, data_leaves(task.args, args))
