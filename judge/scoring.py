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

A late policy (``judge batch --deadline T --late-penalty 10%/day --grace 15m``, as
Gradescope's late due dates and a course's penalty per day are used) takes a fraction
of the points earned off a submission handed in after the deadline and its grace
period: per started day (or hour, or week) late, or once (``--late-penalty 50%``), never
more than all of them.  Within the grace period a submission is on time.  The fraction
is the report's ``late`` (``LateCharge``), which ``score`` applies, so every view that
shows points shows the same, penalised ones.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .verdicts import Status

if TYPE_CHECKING:  # what scoring reads of a report (judge.report imports this module)
    from collections.abc import Sequence
    from typing import Protocol

    from .bank import Task

    class CheckResult(Protocol):
        kind: str
        required: bool
        status: Status
        message: str
        details: dict[str, Any]

        def counts(self, strict: bool) -> bool: ...

    class Report(Protocol):
        strict: bool

        @property
        def checks(self) -> Sequence[CheckResult]: ...


SETUP_KINDS = ("load", "judge")  # added by the runner when the task's checks cannot run
# added by the runner when the learner's code touched its instruments: worth nothing, and
# no performance check earns its points then (what it measured cannot be trusted)
TAMPER_KIND = "instruments"
PERFORMANCE_KINDS = ("retrace", "sync")  # for reports stored before points were recorded


def outcome(check: CheckResult, strict: bool) -> tuple[Status, str]:
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


def check_points(check: CheckResult) -> tuple[float, bool]:
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
    passed: bool  # as the verdict sees it (an advisory failure passes unless strict)


@dataclass(frozen=True)
class Score:
    earned: float
    maximum: float
    checks: tuple[CheckScore, ...]  # one per check of the report, in its order
    before_late: float | None = None  # what the checks earned, where a late penalty took some

    def to_dict(self) -> dict[str, Any]:
        return {"points": number(self.earned), "max_points": number(self.maximum)}


def score(report: Report) -> Score:
    """The report's points, less its late penalty (``report.late``) where it has one."""
    points = _checks_score(report)
    late = getattr(report, "late", None)
    if not isinstance(late, LateCharge) or not late.fraction:
        return points
    kept = round(points.earned * (1 - late.fraction), 3)
    return Score(kept, points.maximum, points.checks, before_late=points.earned)


def _checks_score(report: Report) -> Score:
    blocked = any(c.kind in SETUP_KINDS and c.status.bad for c in report.checks)
    rows = []  # (passed, worth, performance) per check
    for c in report.checks:
        state = outcome(c, report.strict)[0]
        passed = state == Status.PASSED or (
            state == Status.SKIPPED and not blocked and not c.details.get("out_of_time")
        )
        points, performance = check_points(c)
        can = (
            0
            if c.kind in SETUP_KINDS + (TAMPER_KIND,)
            else worth(points, c.required, report.strict)
        )
        rows.append((passed, can, performance))
    values_ok = all(passed for passed, can, performance in rows if can and not performance)
    tampered = any(c.kind == TAMPER_KIND and c.status.bad for c in report.checks)
    out = tuple(
        CheckScore(
            can if passed and ((values_ok and not tampered) or not performance) else 0, can, passed
        )
        for passed, can, performance in rows
    )
    return Score(sum(c.earned for c in out), sum(c.worth for c in out), out)


def task_maximum(task: Task, strict: bool) -> float:
    """The most a grading of ``task`` can earn: what a missing submission scores 0 of."""
    return sum(worth(c.points, c.required, strict) for c in task.checks)


def number(x: float) -> int | float:
    """Points as JSON and CSV show them: 3, not 3.0."""
    return int(x) if float(x).is_integer() else round(x, 3)


# ---------------------------------------------------------------- late policy

_UNITS = {
    "s": 1,
    "sec": 1,
    "m": 60,
    "min": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
    "w": 604800,
    "week": 604800,
}
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*")
_PENALTY = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(%?)\s*(?:(?:/|per\s+)\s*([a-z]+))?\s*")


class PolicyError(ValueError):
    """A late policy that cannot be read; the message says how to write one."""


def parse_duration(text: str) -> timedelta:
    """``15m``, ``2h``, ``1d``, ``90s``, ``1w`` (also ``15min``, ``2hours``, ``1 day``)."""
    m = _DURATION.fullmatch(text.lower())
    unit = m and (m[2] if m[2] in _UNITS else m[2].rstrip("s"))
    if not m or unit not in _UNITS:
        raise PolicyError(f"'{text}' is not a duration (15m, 2h, 1d, 1w)")
    return timedelta(seconds=float(m[1]) * _UNITS[unit])


@dataclass(frozen=True)
class LatePolicy:
    """``fraction`` of the points taken off per started ``unit`` late (once, where
    ``unit`` is None), after ``grace``."""

    fraction: float = 0.0
    unit: timedelta | None = None
    grace: timedelta = timedelta(0)

    @classmethod
    def parse(cls, penalty: str | None, grace: str | None = None) -> "LatePolicy":
        """``10%/day``, ``0.1/day``, ``5%/hour``, ``50%`` (once late), ``0.5``; ``grace``
        a duration."""
        fraction, unit = 0.0, None
        if penalty:
            m = _PENALTY.fullmatch(penalty.lower())
            if not m:
                raise PolicyError(
                    f"--late-penalty: '{penalty}' is not a penalty: write 10%/day "
                    "(a tenth of the points per started day late), 5%/hour, or "
                    "50% (once, however late)"
                )
            fraction = float(m[1]) / (100 if m[2] else 1)
            if m[3]:
                name = m[3] if m[3] in _UNITS else m[3].rstrip("s")
                if name not in _UNITS:
                    raise PolicyError(
                        f"--late-penalty: '{m[3]}' is not a unit of time (hour, day, week)"
                    )
                unit = timedelta(seconds=_UNITS[name])
            if not 0 <= fraction <= 1:
                raise PolicyError(
                    f"--late-penalty: {penalty} takes more than all the points "
                    "(write a percentage up to 100%, or a fraction up to 1)"
                )
        try:
            kept = parse_duration(grace) if grace else timedelta(0)
        except PolicyError as exc:
            raise PolicyError(f"--grace: {exc}") from None
        return cls(fraction, unit, kept)

    def late_by(self, submitted: datetime | None, deadline: datetime | None) -> timedelta | None:
        """How late after the deadline and its grace, or None when on time (or unknown)."""
        if submitted is None or deadline is None or submitted <= deadline + self.grace:
            return None
        return submitted - deadline

    def charge(self, late_by: timedelta | None) -> "LateCharge | None":
        if late_by is None:
            return None
        units = math.ceil(late_by / self.unit) if self.unit else 1
        fraction = min(1.0, self.fraction * units)
        return LateCharge(fraction, late_by, self.describe())

    def describe(self) -> str:
        if not self.fraction:
            policy = "no penalty"
        else:
            per = f" per started {_unit_name(self.unit)} late" if self.unit else " once late"
            policy = f"{_percent(self.fraction)} of the points{per}"
        return policy + (f", after a grace period of {_span(self.grace)}" if self.grace else "")


@dataclass(frozen=True)
class LateCharge:
    """What a late policy takes off one grading."""

    fraction: float
    late_by: timedelta
    policy: str

    def note(self, before: float, after: float) -> str:
        """The report's words for it."""
        taken = (
            (
                f": {_percent(self.fraction)} off, {number(after)} of the "
                f"{number(before)} points earned kept"
            )
            if self.fraction
            else ""
        )
        return f"handed in {_span(self.late_by)} after the deadline (late policy: {self.policy}){taken}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "late_by_s": round(self.late_by.total_seconds()),
            "penalty": round(self.fraction, 4),
            "policy": self.policy,
        }


def _unit_name(unit: timedelta) -> str:
    names = {604800: "week", 86400: "day", 3600: "hour", 60: "minute", 1: "second"}
    return names.get(int(unit.total_seconds()), _span(unit))


def _percent(fraction: float) -> str:
    return f"{number(fraction * 100)}%"


def _span(span: timedelta) -> str:
    """``1 day 2 h``, ``3 h 5 min``, ``40 s``: as late as a person reads it."""
    seconds = int(span.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days} day{'s' if days != 1 else ''}"] if days else []
    parts += [f"{hours} h"] if hours else []
    parts += [f"{minutes} min"] if minutes and not days else []
    parts += [f"{secs} s"] if secs and not days and not hours else []
    return " ".join(parts) or "0 s"
