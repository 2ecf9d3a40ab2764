"""Gradescope autograder ``results.json``: one test per check, scored.

Each test is worth its check's points (judge/scoring.py: the same score as
gradebook.csv and the HTML pages; partial credit, nbgrader#974: a wrong answer that
passes the examples keeps those points).  Checks the runner adds when the task's own
cannot run ("load", "judge") are worth nothing, so every report of a task has the same
maximum and a file that does not load (or is not there) scores 0 of it.  Statuses
follow the verdict, as in the Exercism view.

Each test has its check's `visibility` (tasks.yaml; Gradescope's `visible`,
`after_due_date`, `after_published`, `hidden`).  What the learner's code printed may
hold a withheld check's inputs, so where any check is withheld it moves from the
always-shown summary into a test of its own, shown as late as the latest check; and a
summary whose failures are all withheld does not say the answer is wrong.
"""

from __future__ import annotations

import json

from ..bank import VISIBILITIES
from ..scoring import SETUP_KINDS, number, outcome, score
from ..verdicts import Status, Verdict
from . import late_note
from .exercism import learner_output

HEADLINES = {
    Verdict.ACCEPTED: "Accepted.",
    Verdict.WRONG_ANSWER: "Wrong answer: see the failed tests.",
    Verdict.RUNTIME_ERROR: "Your code raised an error or crashed: see the failed tests.",
    Verdict.TIME_LIMIT_EXCEEDED: "Time limit exceeded.",
    Verdict.MEMORY_LIMIT_EXCEEDED: "Memory limit exceeded.",
    Verdict.INVALID_SUBMISSION: "The file does not load: see the first test.",
    Verdict.INEFFICIENT: "The values are right, but a required performance check failed.",
    Verdict.JUDGE_ERROR: "The judge failed (not your fault): your instructor has been told.",
}
WITHHELD = "The checks shown now pass; the others are shown later and count in your score."


def visibility(check) -> str:
    shown = check.details.get("visibility", "visible")
    return shown if shown in VISIBILITIES else "visible"


def results(report) -> dict:
    tests = []
    points = score(report)
    for index, (c, earned) in enumerate(zip(report.checks, points.checks), 1):
        state, note = outcome(c, report.strict)
        passed = earned.passed
        text = note or c.message
        if passed and earned.earned < earned.worth:
            text += "\n(its points count once every value check passes: values first)"
        tb = c.details.get("traceback")
        if tb and state == Status.ERROR:
            text += "\n" + "\n".join(str(tb).rstrip().splitlines()[-6:])
        extra = {"check": c.id, "kind": c.kind, "status": c.status}
        if c.counterexample is not None and not passed:
            extra["counterexample"] = c.counterexample
        tests.append(
            {
                "score": number(earned.earned),
                "max_score": number(earned.worth),
                "status": "passed" if passed else "failed",
                "name": f"{c.id} ({c.kind}{'' if c.required else ', advisory'})",
                "number": str(index),
                "output": text,
                "output_format": "text",
                "tags": [c.kind, "required" if c.required else "advisory"],
                "visibility": visibility(c),
                "extra_data": extra,
            }
        )
    printed = learner_output(report)
    latest = max((t["visibility"] for t in tests), key=VISIBILITIES.index, default="visible")
    # when the task's checks could not run, why is the headline (a missing file, a syntax error)
    setup = next((c for c in report.checks if c.kind in SETUP_KINDS and c.status.bad), None)
    headline = setup.message[:1].upper() + setup.message[1:] if setup else HEADLINES[report.verdict]
    failing = [c for c in report.checks if c.counts(report.strict)]
    if failing and not setup and all(visibility(c) != "visible" for c in failing):
        headline = WITHHELD
    output = f"{headline}  ({report.task}, seed {report.seed})"
    late = late_note(report)  # a batch's late policy (judge/scoring.py), charged or not
    if late is not None:
        output += "\n" + late
    if printed and latest == "visible":
        output += "\n\nYour code printed:\n" + printed
    elif printed:
        output += "\n\nWhat your code printed is shown with the checks shown last."
        tests.append(
            {
                "score": 0,
                "max_score": 0,
                "status": "passed",
                "name": "what your code printed",
                "number": str(len(tests) + 1),
                "output": printed,
                "output_format": "text",
                "tags": ["output"],
                "visibility": latest,
                "extra_data": {"check": None},
            }
        )
    return {
        "score": number(points.earned),
        "execution_time": round(report.elapsed_s, 3),
        "output": output,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "task": report.task,
            "verdict": report.verdict,
            "seed": report.seed,
            "strict": report.strict,
            "judge_version": report.judge_version,
        },
        "tests": tests,
    }


NAME = "gradescope"
RESULTS_FILE = True  # the autograder's results.json: a missing one is a broken grader


def emit_path(learner: str, task_id: str) -> str:
    return f"{learner}/{task_id}/results.json"


def write(report, stream, *, color: bool = False) -> None:
    stream.write(json.dumps(results(report), ensure_ascii=False, indent=2) + "\n")


def write_many(reports, stream, *, color: bool = False) -> None:
    """One results.json of several tasks' reports (``judge run --tasks``), as the
    autograder of ``judge gradescope`` writes it."""
    docs = [(r.task, results(r)) for r in reports]
    version = reports[0].judge_version if reports else "?"
    stream.write(json.dumps(merge(docs, version), ensure_ascii=False, indent=2) + "\n")


def _maximum(doc: dict) -> float:
    return number(sum(t.get("max_score", 0) for t in doc.get("tests", [])))


def merge(docs: list[tuple[str, dict]], judge_version: str) -> dict:
    """One results.json of the tasks' ones, ``[(task id, its results.json)]``: every
    task's tests, its id in their names and numbers (`2.3`: the task's second, its third
    test), the scores summed."""
    tests, parts, extra = [], [], {}
    for index, (task, doc) in enumerate(docs, 1):
        for n, test in enumerate(doc.get("tests", []), 1):
            test = dict(test, name=f"{task}: {test.get('name', n)}", number=f"{index}.{n}")
            test["extra_data"] = dict(test.get("extra_data") or {}, task=task)
            tests.append(test)
        parts.append(
            f"{task} ({number(doc.get('score', 0))} of {_maximum(doc)} points): "
            f"{doc.get('output', '')}"
        )
        extra[task] = doc.get("extra_data") or {}
    return {
        "score": number(sum(t.get("score", 0) for t in tests)),
        "execution_time": round(sum(d.get("execution_time", 0) for _, d in docs), 3),
        "output": "\n\n".join(parts),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"judge_version": judge_version, "tasks": extra},
        "tests": tests,
    }
