"""The service over a term: the learners a course site names, and the class views of
their submissions, built from the store on each request (so they are as live as the
store, and a restart loses nothing).

    learner_id(value)   the opaque id a course site gives (``learner`` in a submission, the
                        ``{id}`` of ``/v1/learners/{id}/submissions``), checked: 1 to 128
                        characters of ``A-Z a-z 0-9 . _ @ + -``, a letter or digit first
                        (no path, markup, formula or control character can be one)
    history(...)        the learner's submissions, newest first
    gradebook(...)      the batch's ``Gradebook`` (judge/batch/gradebook.py) with one cell per
                        learner and task: the best or the last graded attempt
    class_page(...)     the batch's class report page (judge/batch/class_report.py) of it

Only the class views' data is made here; the pages and the CSV are the batch's own
code, so ``judge batch`` and the service can never disagree on what a gradebook says.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone

from ..bank import Bank
from ..report import Report
from ..scoring import score
from ..verdicts import Verdict

MAX_LEARNER_CHARS = 128
LEARNER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,%d}" % (MAX_LEARNER_CHARS - 1))
ATTEMPTS = ("best", "last")
MAX_HISTORY = 1000


class BadLearner(ValueError):
    """Not a learner id the service accepts; the message says why."""


def learner_id(value) -> str:
    if not isinstance(value, str):
        raise BadLearner("'learner' must be the course site's id for the learner, as a string")
    if not LEARNER_ID.fullmatch(value):
        raise BadLearner(
            f"'learner' must be 1 to {MAX_LEARNER_CHARS} characters of letters, "
            "digits and . _ @ + -, starting with a letter or a digit"
        )
    return value


def history(store, learner: str, limit: int) -> dict:
    """``{"learner", "submissions": [...]}``, newest first: each with its id, task, state,
    times and, once graded, its verdict and points."""
    out = []
    for row in store.history(learner, limit):
        item = {
            "id": row["id"],
            "task": row["task"],
            "state": row["state"],
            "created_at": _iso(row["created_at"]),
            "finished_at": _iso(row["finished_at"]),
        }
        if row["state"] == "done":
            report = Report.from_dict(json.loads(row["report"]))
            item.update(verdict=row["verdict"], **score(report).to_dict())
        out.append(item)
    return {"learner": learner, "submissions": out}


class _Handed:
    """What the batch's gradebook reads of a handed-in file (discovery.Submission's
    fields), for a stored submission."""

    def __init__(self, row: dict):
        self.learner, self.task_id = row["learner"], row["task"]
        self.path, self.source = row["filename"], bytes(row["source"])
        self.submitted = datetime.fromtimestamp(row["created_at"], timezone.utc)
        self.refused, self.file = "", None
        self.suffix = ".ipynb" if self.path.endswith(".ipynb") else ".py"


def gradebook(bank: Bank, store, attempt: str = "best"):
    """The batch's Gradebook over the learners the service has seen: a column per task
    of the bank, a cell per learner and task holding the ``best`` (most points, the later
    on a tie) or the ``last`` graded attempt; ``pending`` where every attempt still
    waits, ``missing`` where none was handed in.  A ``judge_error`` counts only where
    there is nothing else (it is the judge's fault, not an attempt)."""
    from ..batch.gradebook import build

    chosen: dict[tuple[str, str], tuple] = {}  # (learner, task) -> (rank, row, record)
    waiting: dict[tuple[str, str], dict] = {}
    learners: set[str] = set()
    for row in store.class_rows():
        if row["task"] not in bank.tasks:
            continue  # a task the bank no longer has
        key = (row["learner"], row["task"])
        learners.add(row["learner"])
        if row["state"] != "done":
            waiting.setdefault(key, row)
            continue
        report = json.loads(row["report"])
        record = {
            "learner": row["learner"],
            **report,
            "submission": row["filename"],
            "sha256": hashlib.sha256(bytes(row["source"])).hexdigest(),
        }
        fine = report["verdict"] != Verdict.JUDGE_ERROR
        points = score(Report.from_dict(report)).earned
        # later rows come later: >= keeps the later one on a tie
        rank = (fine, points) if attempt == "best" else (fine,)
        if key not in chosen or rank >= chosen[key][0]:
            chosen[key] = (rank, row, record)
    plan = [_Handed(row) for _, row, _ in chosen.values()]
    plan += [_Handed(row) for key, row in waiting.items() if key not in chosen]
    records = [record for _, _, record in chosen.values()]
    columns = sorted(bank.tasks, key=lambda t: (bank.tasks[t].step, t))
    return build(
        sorted(learners),
        columns,
        bank.tasks,
        plan,
        records,
        lambda learner, task_id: "nothing handed in to the service",
        strict=False,
    )


def class_page(bank: Bank, store, attempt: str) -> str:
    """The batch's class report over the service's learners.  Its links to each
    grading's page (``reports/...``, files a batch writes) have no file here; the
    learner's history has every report, so they are left as text."""
    from ..batch.class_report import class_page as batch_class_page

    page = batch_class_page(gradebook(bank, store, attempt), [], {"attempt": attempt})
    return re.sub(r' href="reports/[^"]*"', "", page)


def summary(bank: Bank, store, attempt: str) -> dict:
    """summary.json's numbers of the same gradebook (for a site that wants them as data)."""
    from ..batch.gradebook import summary as batch_summary

    return batch_summary(gradebook(bank, store, attempt), [], {"attempt": attempt})


def gradebook_csv(bank: Bank, store, attempt: str) -> str:
    from ..batch.gradebook import gradebook_csv as batch_csv

    return batch_csv(gradebook(bank, store, attempt))


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, timezone.utc).isoformat()
