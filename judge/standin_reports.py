"""Reports made without a grading, in the contract's shape so every view reads them:
no submission, no such task, the judge's own failure; and what every check's result
records of its task (points, visibility), for these and for a grading alike."""

from __future__ import annotations

import traceback

from . import __version__
from .bank import Task
from .report import CheckResult, Report
from .verdicts import Status, Verdict


def missing_report(task: Task, submission: str, why: str, seed: int | None, strict: bool) -> Report:
    """The report of a submission that is not there (a batch's missing cell), so that
    every view (a Gradescope results.json above all: without one Gradescope shows a
    broken autograder) says why, and scores it 0 of the task's points."""
    report = _standing_in(
        task.id,
        task.title,
        submission,
        task.seed if seed is None else seed,
        strict,
        CheckResult(
            id="load",
            kind="load",
            required=True,
            status=Status.ERROR,
            message=f"nothing to grade: {why}",
            verdict=Verdict.INVALID_SUBMISSION,
        ),
    )
    for spec in task.checks:
        skipped = spec.result(Status.SKIPPED, "not run: no submission")
        skipped.details.update(points_details(spec))
        skipped.details.update(visibility_details(task, spec.id))
        report.checks.append(skipped)
    return report.finish()


def no_task_report(
    task_id: str, submission: str, why: str, seed: int | None, strict: bool
) -> Report:
    """The report when the task asked for is not in the bank: the grader's set-up is at
    fault, never the learner, and a platform's results file still says so."""
    message = f"this grader is set up for a task the bank does not hold (not your fault): {why}"
    return _standing_in(
        task_id,
        task_id,
        submission,
        0 if seed is None else seed,
        strict,
        CheckResult(
            id="task",
            kind="judge",
            required=True,
            status=Status.ERROR,
            message=message,
            verdict=Verdict.JUDGE_ERROR,
        ),
    ).finish()


def points_details(spec) -> dict:
    """What a check is worth, recorded in its result so every view scores it alike."""
    from .scoring import number

    return {"points": number(spec.points), **({"performance": True} if spec.performance else {})}


def visibility_details(task: Task, check_id: str) -> dict:
    """Who sees the check's result on Gradescope, and when (tasks.yaml `visibility`),
    recorded like its points; said only where it is not the default, visible."""
    shown = task.visibility.get(check_id, "visible")
    return {} if shown == "visible" else {"visibility": shown}


def judge_error_report(
    task: Task, submission, seed: int | None, strict: bool, exc: BaseException
) -> Report:
    """The report of a grading that the judge itself broke: never the learner's fault,
    never a traceback in their face."""
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return _standing_in(
        task.id,
        task.title,
        str(submission),
        task.seed if seed is None else seed,
        strict,
        CheckResult(
            id="judge",
            kind="judge",
            required=True,
            status=Status.ERROR,
            message=f"the judge failed (not your fault): {detail}",
            verdict=Verdict.JUDGE_ERROR,
        ),
    ).finish()


def _standing_in(
    task_id: str, title: str, submission: str, seed: int, strict: bool, first: CheckResult
) -> Report:
    """A report that stands in for a grading, its first check saying why."""
    report = Report(
        task=task_id,
        submission=submission,
        seed=seed,
        judge_version=__version__,
        strict=strict,
        title=title,
    )
    report.checks.append(first)
    return report
