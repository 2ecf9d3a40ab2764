"""Shared wording: a call as a learner would write it, and a failed call as a result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..compare import compare
from ..specs import data_leaves
from ..values import display, leaves, render, replay_snippet
from ..verdicts import Status, Verdict
from ..worker.wire import Leaf

if TYPE_CHECKING:
    from ..compare import Mismatch
    from ..report import CheckResult
    from ..session import CallOutcome


class _Check(Protocol):
    """What these helpers use of a check (base.CheckSpec, which imports this module)."""

    def result(self, status: Status | str, message: str, **kw: Any) -> CheckResult: ...


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 call``, ``3 calls``; ``many`` where the plural is not ``word + 's'``."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def call_label(args: dict[str, Any]) -> str:
    parts = []
    for name, value in args.items():
        if isinstance(value, Leaf) and value.kind == "key":
            parts.append(f"{name} a key")
        elif isinstance(value, Leaf):
            a = value.array
            parts.append(
                f"{name} {a.dtype}{list(a.shape)}"
                if value.kind == "jax"
                else f"{name} {'np.' if value.kind != 'jax' else ''}{a.dtype}{list(a.shape)}"
            )
        elif isinstance(value, (list, tuple, dict)):
            kinds = {
                type(l).__name__ if not isinstance(l, Leaf) else l.array.dtype.name
                for l in leaves(value)
            }
            parts.append(
                f"{name} {type(value).__name__} of {len(value)} ({', '.join(sorted(kinds))})"
            )
        else:
            parts.append(f"{name}={render(value)}")
    return ", ".join(parts)


def call_text(entrypoint: str, args: dict[str, Any]) -> str:
    return f"{entrypoint}(" + ", ".join(f"{k}={render(v)}" for k, v in args.items()) + ")"


def counterexample(args: dict[str, Any], expected: Any = ..., actual: Any = ...) -> dict[str, Any]:
    out: dict[str, Any] = {"args": {k: display(v) for k, v in args.items()}}
    if expected is not ...:
        out["expected"] = display(expected)
    if actual is not ...:
        out["actual"] = display(actual)
    return out


def replay(
    grading: Any, args: dict[str, Any], note: str = "", call: str | None = None
) -> dict[str, str]:
    """The check details that let a learner call their function on exactly the failing
    input (``details.replay``: Python for a cell; the text and HTML reports end with it).
    ``note``: a comment line saying which call it was (``scripted_note``) or what the
    check looks at; ``call``: the last line, where the check calls the function otherwise
    than ``f(a=a, ...)`` (``values.replay_snippet``)."""
    return {"replay": replay_snippet(grading.task.entrypoint, args, note=note, call=call)}


def scripted_note(index: int, total: int, script: str) -> str:
    """Which call of a script a replay is: the calls before it ran first, in the same
    worker, and the snippet replays this one alone (what a failure needed of them, a
    cache or a count kept between calls, it does not rebuild)."""
    where = f"scripted call {index} of {total} (the script '{script}')"
    if index == 1:
        return where
    before = "call 1" if index == 2 else f"calls 1 to {index - 1}"
    return f"{where}, made after {before} of the script: this replays it alone"


def failed_call(
    check: _Check,
    grading: Any,
    args: dict[str, Any],
    outcome: CallOutcome,
    context: str = "",
    note: str = "",
    call: str | None = None,
) -> CheckResult:
    """A CheckResult for a call that raised, timed out, crashed or ran out of memory;
    ``note`` and ``call`` as ``replay`` takes them."""
    if outcome.message.startswith("not run:"):  # the grading stopped calling it
        return check.result("error", outcome.message, verdict=outcome.verdict)
    if outcome.verdict == Verdict.WRONG_ANSWER:  # it answered, wrongly (an input changed)
        return check.result(
            Status.FAILED,
            f"{context}{call_text(grading.task.entrypoint, args)}: {outcome.message}",
            counterexample=counterexample(args),
            details=replay(grading, args, note, call),
            verdict=Verdict.WRONG_ANSWER,
        )
    said: dict[Verdict | None, str] = {
        Verdict.TIME_LIMIT_EXCEEDED: "ran out of time",
        Verdict.MEMORY_LIMIT_EXCEEDED: "ran out of memory",
        Verdict.RUNTIME_ERROR: "failed",
    }
    what = said.get(outcome.verdict, "failed")
    message = f"{context}{call_text(grading.task.entrypoint, args)} {what}: {outcome.message}"
    details = dict(
        replay(grading, args, note, call),
        **({"traceback": outcome.traceback} if outcome.traceback else {}),
    )
    return check.result(
        "error",
        message,
        counterexample=counterexample(args),
        details=details,
        verdict=outcome.verdict,
    )


def mismatch(grading: Any, args: dict[str, Any], actual: Any, expected: Any) -> Mismatch | None:
    task = grading.task
    return compare(actual, expected, task.result, task.tolerance, data_leaves(task.args, args))
