"""Exercism test-runner ``results.json``, version 3: one test per check.

The verdict decides every status, so this view never disagrees with the others: a check
that counts against the verdict is ``fail`` (``error`` when it could not run to a
result); an advisory check that failed without ``--strict`` is ``pass`` with a note in its
output, and so is a skipped one (once the file loaded, only the task skips a check).  The top-level status is ``error`` only when no test
could run (the file did not load, or the judge failed first), as the spec asks.

A submission handed in late (``judge batch --deadline``) says so, and what a late
penalty took, where the learner reads it: the spec keeps the top-level ``message`` for an
``error`` (it ends with the note there), so otherwise the first test's ``output`` begins
with it.  Several tasks' reports (``judge run --tasks``) make one file: every task's
tests, named ``task: check`` and numbered by ``task_id`` (the spec's task of a test).
"""

from __future__ import annotations

import json

from ..scoring import SETUP_KINDS, outcome
from ..verdicts import Verdict
from . import late_note

OUTPUT_LIMIT = 500  # the spec's cap on a test's output
STATUS = {"passed": "pass", "skipped": "pass", "failed": "fail", "error": "error"}


def capped(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """``text`` within ``limit`` characters, saying so when cut (exercism#5602)."""
    if len(text) <= limit:
        return text
    note = f"\n... (cut: {len(text)} characters in all)"
    return text[: limit - len(note)] + note


def learner_output(report) -> str:
    out = report.output or {}
    text = (out.get("stdout") or "") + (out.get("stderr") or "")
    return text + ("\n[the judge cut the output here]" if out.get("truncated") else "")


def results(report) -> dict:
    late = late_note(report)
    if all(c.status == "skipped" or c.kind in SETUP_KINDS for c in report.checks):
        failed = next((c for c in report.checks if c.status in ("failed", "error")), None)
        message = failed.message if failed else f"no test ran: {report.verdict}"
        if late is not None:
            message += f"\n({late})"
        return {"version": 3, "status": "error", "message": message, "tests": []}
    # The run's output belongs to no single check: every test carries it (python-test-runner#31).
    output = learner_output(report)
    tests: list[dict] = []
    for c in report.checks:
        state, note = outcome(c, report.strict)
        test = {
            "name": c.id,
            "test_code": f"{c.kind} check '{c.id}' of task {report.task}",
            "status": STATUS[state],
        }
        if STATUS[state] != "pass":
            test["message"] = c.message
        said = [text for text in (late if not tests else None, note, output) if text]
        if said:
            test["output"] = capped("\n".join(said))
        tests.append(test)
    return {
        "version": 3,
        "status": "pass" if report.verdict == Verdict.ACCEPTED else "fail",
        "message": None,
        "tests": tests,
    }


NAME = "exercism"
RESULTS_FILE = True  # the test runner's results.json: a missing one is a broken runner


def emit_path(learner: str, task_id: str) -> str:
    return f"{learner}/{task_id}/results.json"


def write(report, stream, *, color: bool = False) -> None:
    stream.write(json.dumps(results(report), ensure_ascii=False, indent=2) + "\n")


def merged(reports) -> dict:
    """One results.json of several tasks' reports: every task's tests (a task none of
    whose tests could run gives one ``error`` test saying why), ``pass`` when every task
    passed, ``error`` only when no task's test ran."""
    docs = [(r.task, results(r)) for r in reports]
    tests: list[dict] = []
    for index, (task, doc) in enumerate(docs, 1):
        if doc["status"] == "error":
            tests.append(
                {
                    "name": f"{task}: the file",
                    "test_code": f"task {task}",
                    "status": "error",
                    "message": doc["message"],
                    "task_id": index,
                }
            )
        for test in doc["tests"]:
            tests.append(dict(test, name=f"{task}: {test['name']}", task_id=index))
    statuses = {doc["status"] for _, doc in docs}
    if statuses == {"error"}:
        message = "\n".join(f"{task}: {doc['message']}" for task, doc in docs)
        return {"version": 3, "status": "error", "message": message, "tests": []}
    return {
        "version": 3,
        "status": "pass" if statuses == {"pass"} else "fail",
        "message": None,
        "tests": tests,
    }


def write_many(reports, stream, *, color: bool = False) -> None:
    stream.write(json.dumps(merged(reports), ensure_ascii=False, indent=2) + "\n")
