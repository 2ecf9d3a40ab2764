"""Gradescope autograder ``results.json``: one test per check, scored.

A check that counts towards the verdict is worth one point (advisory checks count only
under ``--strict``); checks the runner adds when the task's own cannot run ("load",
"judge") are worth nothing, so every report of a task has the same maximum and a file
that does not load scores 0 of it.  Statuses follow the verdict, as in the Exercism view
(partial credit, nbgrader#974: a wrong answer that passes the examples keeps that point).
"""

from __future__ import annotations

import json

from .exercism import SETUP_KINDS, learner_output, outcome
from ..verdicts import Verdict

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


def results(report) -> dict:
    # Checks skipped because the file did not load cost their points; a check the task
    # itself skips (for every learner alike) is worth nothing.
    blocked = any(c.kind in SETUP_KINDS and c.status in ("failed", "error") for c in report.checks)
    tests = []
    for number, c in enumerate(report.checks, 1):
        state, note = outcome(c, report.strict)
        worth = int(c.kind not in SETUP_KINDS and (c.required or report.strict)
                    and (state != "skipped" or blocked))
        passed = state == "passed" or (state == "skipped" and not blocked)
        text = note or c.message
        tb = c.details.get("traceback")
        if tb and state == "error":
            text += "\n" + "\n".join(str(tb).rstrip().splitlines()[-6:])
        extra = {"check": c.id, "kind": c.kind, "status": c.status}
        if c.counterexample is not None and not passed:
            extra["counterexample"] = c.counterexample
        tests.append({"score": worth if passed else 0, "max_score": worth,
                      "status": "passed" if passed else "failed",
                      "name": f"{c.id} ({c.kind}{'' if c.required else ', advisory'})",
                      "number": str(number), "output": text, "output_format": "text",
                      "tags": [c.kind, "required" if c.required else "advisory"],
                      "visibility": "visible", "extra_data": extra})
    printed = learner_output(report)
    output = f"{HEADLINES[report.verdict]}  ({report.task}, seed {report.seed})"
    if printed:
        output += "\n\nYour code printed:\n" + printed
    return {"score": sum(t["score"] for t in tests), "execution_time": round(report.elapsed_s, 3),
            "output": output, "output_format": "text", "visibility": "visible",
            "stdout_visibility": "hidden",
            "extra_data": {"task": report.task, "verdict": report.verdict, "seed": report.seed,
                           "strict": report.strict, "judge_version": report.judge_version},
            "tests": tests}


def write(report, stream, *, color: bool = False) -> None:
    stream.write(json.dumps(results(report), ensure_ascii=False, indent=2) + "\n")
