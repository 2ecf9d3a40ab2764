"""Exercism test-runner ``results.json``, version 3: one test per check.

The verdict decides every status, so this view never disagrees with the others: a check
that counts against the verdict is ``fail`` (``error`` when it could not run to a
result); an advisory check that failed without ``--strict`` is ``pass`` with a note in its
output, and so is a skipped one (once the file loaded, only the task skips a check).  The top-level status is ``error`` only when no test
could run (the file did not load, or the judge failed first), as the spec asks.
"""

from __future__ import annotations

import json

from ..scoring import SETUP_KINDS, outcome
from ..verdicts import Verdict

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
    if all(c.status == "skipped" or c.kind in SETUP_KINDS for c in report.checks):
        failed = next((c for c in report.checks if c.status in ("failed", "error")), None)
        message = failed.message if failed else f"no test ran: {report.verdict}"
        return {"version": 3, "status": "error", "message": message, "tests": []}
    # The run's output belongs to no single check: every test carries it (python-test-runner#31).
    output = learner_output(report)
    tests = []
    for c in report.checks:
        state, note = outcome(c, report.strict)
        test = {
            "name": c.id,
            "test_code": f"{c.kind} check '{c.id}' of task {report.task}",
            "status": STATUS[state],
        }
        if STATUS[state] != "pass":
            test["message"] = c.message
        if note or output:
            test["output"] = capped(note + ("\n" if note and output else "") + output)
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
