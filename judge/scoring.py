"""Points: one score for one grading, the same in gradebook.csv, the Gradescope file
and the HTML pages; and ``outcome``, how each check counts for the verdict, which the
points and every writer read alike.

The rule (README "Points"):

* each check is worth its ``points`` (tasks.yaml, per check; the check kind's default:
  2 for a value check, 1 for a performance check);
* an advisory check (``required: false``) is worth nothing unless graded ``--strict``;
  the checks the runner adds when the task's own cannot run (``load``, ``judge``) are
  worth nothing, so every grading of a task has the same maximum;
* values first, performance after: a check earns its points when it passed (as the
  verdict sees it), and a performance check only when every value check passed too,
  since fast wrong code is worth nothing;
* a check the task skips for everyone (no examples stated) earns its points; one skipped
  because the file did not load earns none, nor one the run's time ran out for
  (``details["out_of_time"]``: it was not run to the end, after a wrong value).

So an ``accepted`` grading earns the maximum, an ``inefficient`` one its value points,
a ``wrong_answer`` that passes the examples those points.
"""

from __future__ import annotations

from dataclasses import dataclass

from .verdicts import Status

SETUP_KINDS = ("load", "judge")      # added by the runner when the task's checks cannot run
# added by the runner when the learner's code touched its instruments: worth nothing, and
# no performance check earns its points then (what it measured cannot be trusted)
TAMPER_KIND = "instruments"
PERFORMANCE_KINDS = ("retrace", "sync")   # for reports stored before points were recorded


def outcome(check, strict: bool) -> tuple[Status, str]:
    """(the check's status as the verdict sees it, a note when that differs from what
    happened): an advisory failure without ``--strict`` is "passed".  Every view that
    marks checks (the writers, the points) reads it from here, so none disagrees."""
    if check.status == Status.SKIPPED:
        return Status.SKIPPED, f"not run: {check.message}"
    if check.status == Status.PASSED or check.counts(strict):
        return check.status, ""
    return Status.PASSED, f"advisory, not counted: {check.message}"


def default_points(performance: bool) -> float:
    """What CheckSpec.default_points gives: values first (2), performance after (1)."""
    return 1 if performance else 2


def worth(points: float, required: bool, strict: bool) -> float:
    """What a check of ``points`` can earn in a grading with these options."""
    return points if (required or strict) else 0


def check_points(check) -> tuple[float, bool]:
    """(points, performance) of a CheckResult, as the runner recorded them; a report
    stored before points existed falls back on the defaults by kind."""
    performance = bool(check.details.get("performance", check.kind in PERFORMANCE_KINDS))
    points = check.details.get("points")
    if not isinstance(points, (int, float)) or isinstance(points, bool):
        points = default_points(performance)
    return points, performance


@dataclass(frozen=True)
class CheckScore:
    earned: float
    worth: float
    passed: bool          # as the verdict sees it (an advisory failure passes unless strict)


@dataclass(frozen=True)
class Score:
    earned: float
    maximum: float
    checks: tuple[CheckScore, ...]     # one per check of the report, in its order

    def to_dict(self) -> dict:
        return {"points": number(self.earned), "max_points": number(self.maximum)}


def score(report) -> Score:
    blocked = any(c.kind in SETUP_KINDS and c.status.bad for c in report.checks)
    rows = []                       # (passed, worth, performance) per check
    for c in report.checks:
        state = outcome(c, report.strict)[0]
        passed = state == Status.PASSED or (state == Status.SKIPPED and not blocked
                                            and not c.details.get("out_of_time"))
        points, performance = check_points(c)
        can = 0 if c.kind in SETUP_KINDS + (TAMPER_KIND,) else worth(points, c.required, report.strict)
        rows.append((passed, can, performance))
    values_ok = all(passed for passed, can, performance in rows if can and not performance)
    tampered = any(c.kind == TAMPER_KIND and c.status.bad for c in report.checks)
    out = tuple(CheckScore(can if passed and ((values_ok and not tampered) or not performance) else 0,
                           can, passed)
                for passed, can, performance in rows)
    return Score(sum(c.earned for c in out), sum(c.worth for c in out), out)


def task_maximum(task, strict: bool) -> float:
    """The most a grading of ``task`` can earn: what a missing submission scores 0 of."""
    return sum(worth(c.points, c.required, strict) for c in task.checks)


def number(x: float):
    """Points as JSON and CSV show them: 3, not 3.0."""
    return int(x) if float(x).is_integer() else round(x, 3)
