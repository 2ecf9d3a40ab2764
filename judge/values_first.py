"""Values first: what a performance check says when the values are wrong.

Fast wrong code earns nothing, and a performance check measures the program that
computes the right value: where a value check shows a wrong value (or an exception)
with the input that shows it, every performance check is ``skipped`` with that reason,
whatever its kind, so every writer shows the same state (docs/contract.md, change log).
"""

from __future__ import annotations

from .report import CheckResult
from .verdicts import Status, Verdict

# A performance check judges right values only: when its calls gave a wrong value, or
# raised, and a value check already says so with the input that shows it, it says no more.
VALUE_VERDICTS = (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR)


def performance_skipped_while_values_wrong(
    specs: list, results: list[CheckResult], strict: bool = False
) -> list[CheckResult]:
    """One cause, said once: where the values are wrong (or the code raised) and a value
    check says so with the input that shows it, a performance check is ``skipped`` with
    that reason, whatever its kind: one that ran into the same wrong value (or exception)
    has no counterexample or traceback of its own, and one whose figures were fine is
    not counted, since fast wrong code earns nothing.  One state for every kind, so every
    writer shows the same (contract change log, 2026-12-02)."""
    out = list(results)
    for i, (spec, result) in enumerate(zip(specs, results)):
        if not spec.performance or result.status == Status.SKIPPED:
            continue
        ran_into = result.status.bad and result.verdict in VALUE_VERDICTS
        if not (ran_into or result.status == Status.PASSED):
            continue  # measured and found wanting: that stands
        # a counted value check only: an advisory one decides neither verdict nor points
        cause = next(
            (
                j
                for j, (s, r) in enumerate(zip(specs, results))
                if not s.performance
                and r.counts(strict)
                and r.verdict in VALUE_VERDICTS
                and (r.verdict == result.verdict or not ran_into)
            ),
            None,
        )
        if cause is None:
            continue  # its scripted calls are the only evidence: keep it
        where = "above" if cause < i else "below"
        verdict = results[cause].verdict
        what = "the values are wrong" if verdict == Verdict.WRONG_ANSWER else "your code raised"
        shows = f"the {specs[cause].id} check {where} shows where"
        if ran_into:
            message = f"{what}, so its performance is not measured: {shows}"
        else:
            message = f"{what}, so its performance is not counted (fast wrong code earns nothing): {shows}"
        out[i] = spec.result(Status.SKIPPED, message, details={"values_wrong": True})
    return out


def short_evidence_notes(results: list[CheckResult]) -> list[str]:
    """What a check stopped short by the run's budget said about how much it checked
    (its ``details["short"]``): said above the checks, so no view hides that the verdict
    rests on less evidence than a full run's."""
    return [
        f"the {r.id} check {r.details['short']}"
        for r in results
        if r.status == Status.PASSED and isinstance(r.details.get("short"), str)
    ]
