"""The class views, rebuilt from results.jsonl at the end of every run (also an
interrupted one), so they always agree with the results and a rerun can never leave a
stale or double-counted row.

``Gradebook`` is the one model of them: a cell per learner and task column holding the
verdict, ``pending`` (submitted, not graded yet) or ``missing`` (nothing gradable handed
in, with the reason), its points (judge/scoring.py) and whether it came in late.
gradebook.csv, summary.json, the HTML pages and the emitted files are views of it.

gradebook.csv: a row per learner, a column per task, then ``score`` (points earned),
``max_score`` and ``late`` (the tasks handed in after ``--deadline`` and its grace
period, each with the share a ``--late-penalty`` took off: ``tree_sgd (-20%)``; the
score is after the penalty, judge/scoring.py's late policy).  A learner's
folder name is theirs to choose, so every text cell that a spreadsheet would read as a
formula (``=HYPERLINK(...)``, ``+``, ``-``, ``@``, a tab or CR first) gets a leading
``'`` (OWASP's CSV injection rule); the points stay numbers (the judge writes them, and
they are never negative).  Rows end in CRLF (RFC 4180), so that a CR or LF inside a
name is quoted and stays in its cell.  summary.json:
per task, the count of each verdict, each check's status counts and pass rate, and the
most common failure messages, grouped after the values in them are blanked out (two
learners failing on different inputs fail the same way), and the identical
submissions: the same code handed in for one task by several learners, for the
instructor to look at, comments and layout aside (a copy with a comment added is still
the same code; by content, sha256, where the code cannot be read): ``same_bytes`` when
every file is byte for byte the same, ``same_file`` when they are one file under
several names (a hard link).  Not
listed: a task's untouched starter (the report says "not attempted", and many hand it
in), an empty file, and what was refused unread (a link, a FIFO).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from .. import __version__
from ..report import Report
from ..scoring import LateCharge, LatePolicy, number, score, task_maximum
from ..verdicts import Status, Verdict

COMMON_FAILURES = 5
PENDING, MISSING = "pending", "missing"
_BRACKETS = re.compile(r"\[[^\[\]]*\]")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(\.\d*)?([eE][-+]?\d+)?")


@dataclass
class Cell:
    learner: str
    task_id: str
    state: str  # a verdict, PENDING or MISSING
    record: dict | None = None  # the stored result, when graded
    points: float = 0
    late: bool = False
    why: str = ""  # why it is missing
    file: tuple[int, int] | None = None  # the file graded (device, inode), when known
    code: str | None = None  # its code's fingerprint, comments and layout aside
    charge: LateCharge | None = None  # what the late policy took off (late only)

    @property
    def graded(self) -> bool:
        return self.record is not None


@dataclass
class Gradebook:
    learners: list[str]
    columns: list[str]
    maximum: dict[str, float]  # task -> most points a grading earns
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    deadline: datetime | None = None
    policy: LatePolicy = field(default_factory=LatePolicy)

    def cell(self, learner: str, task_id: str) -> Cell:
        return self.cells[(learner, task_id)]

    def total(self, learner: str) -> float:
        return sum(self.cell(learner, t).points for t in self.columns)

    def late(self, learner: str) -> list[str]:
        return [t for t in self.columns if self.cell(learner, t).late]

    @property
    def max_total(self) -> float:
        return sum(self.maximum[t] for t in self.columns)

    @property
    def records(self) -> list[dict]:
        return [c.record for c in self.cells.values() if c.record is not None]


def build(
    learners,
    columns,
    tasks: dict,
    plan,
    records: list[dict],
    why_missing,
    strict: bool,
    deadline: datetime | None = None,
    policy: LatePolicy | None = None,
) -> Gradebook:
    """``plan``: the submissions to grade; ``records``: the current result of each one
    graded; ``why_missing(learner, task_id)``: the reason a cell has no submission;
    ``policy``: the late policy past ``deadline`` (default: late is marked, not charged)."""
    policy = policy or LatePolicy()
    book = Gradebook(
        sorted(learners),
        list(columns),
        {t: task_maximum(tasks[t], strict) for t in columns},
        deadline=deadline,
        policy=policy,
    )
    graded = {(r["learner"], r["task"]): r for r in records}
    submitted = {(s.learner, s.task_id): s for s in plan}
    for learner in book.learners:
        for task_id in book.columns:
            key = (learner, task_id)
            sub, record = submitted.get(key), graded.get(key)
            if sub is None:
                book.cells[key] = Cell(learner, task_id, MISSING, why=why_missing(learner, task_id))
                continue
            charge = policy.charge(policy.late_by(sub.submitted, deadline))
            late = charge is not None
            if record is None:
                book.cells[key] = Cell(learner, task_id, PENDING, late=late, charge=charge)
                continue
            cell = Cell(
                learner,
                task_id,
                record["verdict"],
                record,
                0,
                late,
                file=sub.file,
                code=code_fingerprint(sub),
                charge=charge,
            )
            cell.points = score(cell_report(cell)).earned
            book.cells[key] = cell
    return book


def cell_report(cell: Cell) -> Report:
    """The stored report of a graded cell, with the late policy's charge on it (which
    ``score`` applies) and said in its notes: what every view of the cell shows."""
    report = Report.from_dict(cell.record)  # type: ignore[arg-type]  # a graded cell's
    if cell.charge is not None:
        report.late = cell.charge  # type: ignore[attr-defined]  # score() reads it with getattr
        before = score(Report.from_dict(cell.record)).earned  # type: ignore[arg-type]  # as above
        report.notes = report.notes + [cell.charge.note(before, score(report).earned)]
    return report


def late_text(cell: Cell) -> str:
    """The gradebook's word for a late cell: its task, and the share taken off."""
    if cell.charge is not None and cell.charge.fraction:
        return f"{cell.task_id} (-{number(cell.charge.fraction * 100)}%)"
    return cell.task_id


def gradebook_csv(book: Gradebook) -> str:
    out = io.StringIO()
    # RFC 4180's CRLF: with it the writer quotes a name holding a CR, which ends a row
    w = csv.writer(out, lineterminator="\r\n")
    rows: list[list[object]] = [["learner", *book.columns, "score", "max_score", "late"]]
    for learner in book.learners:
        rows.append(
            [
                learner,
                *(book.cell(learner, t).state for t in book.columns),
                number(book.total(learner)),
                number(book.max_total),
                " ".join(late_text(book.cell(learner, t)) for t in book.late(learner)),
            ]
        )
    w.writerows([spreadsheet_safe(cell) for cell in row] for row in rows)
    return out.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell):
    """A text cell a spreadsheet would run as a formula, quoted to stay text; numbers as
    they are (only the judge's own points are numbers here)."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


def failure_pattern(message: str) -> str:
    line = message.splitlines()[0] if message else ""
    while _BRACKETS.search(line):
        line = _BRACKETS.sub("\u2026", line)
    return _NUMBER.sub("N", line)[:300]


def summary(book: Gradebook, skipped: list, options: dict) -> dict:
    records = book.records
    tasks: dict[str, dict] = {}
    groups: dict[str, dict[tuple[str, str], dict]] = defaultdict(dict)
    for r in records:
        t = tasks.setdefault(r["task"], {"graded": 0, "verdicts": Counter(), "checks": {}})
        t["graded"] += 1
        t["verdicts"][r["verdict"]] += 1
        for c in r.get("checks", []):
            t["checks"].setdefault(c["id"], Counter())[c["status"]] += 1
            if Status(c["status"]).bad:
                g = groups[r["task"]].setdefault(
                    (c["id"], failure_pattern(c["message"])),
                    {
                        "check": c["id"],
                        "count": 0,
                        "example": c["message"].splitlines()[0][:500],
                        "learners": [],
                    },
                )
                g["count"] += 1
                g["learners"].append(r["learner"])
    for task_id, t in tasks.items():
        t["verdicts"] = {v: t["verdicts"][v] for v in Verdict if t["verdicts"][v]}
        t["pass_rate"] = _rate(t["verdicts"].get(Verdict.ACCEPTED, 0), t["graded"])
        t["checks"] = {cid: dict(sorted(counts.items())) for cid, counts in t["checks"].items()}
        t["check_pass_rates"] = {
            cid: _rate(counts.get(Status.PASSED, 0), sum(counts.values()))
            for cid, counts in t["checks"].items()
        }
        cells = [c for c in book.cells.values() if c.task_id == task_id and c.graded]
        t["points"] = {
            "max": number(book.maximum.get(task_id, 0)),
            "mean": number(sum(c.points for c in cells) / len(cells)) if cells else 0,
        }
        common = sorted(groups[task_id].items(), key=lambda kv: (-kv[1]["count"], kv[0]))
        t["common_failures"] = [
            dict(g, pattern=pattern, learners=sorted(g["learners"]))
            for (_, pattern), g in common[:COMMON_FAILURES]
        ]
        t["identical"] = identical(cells)
    total = Counter(r["verdict"] for r in records)
    states = Counter(c.state for c in book.cells.values())
    return {
        "judge_version": __version__,
        "options": options,
        "graded": len(records),
        "pending": states[PENDING],
        "missing": states[MISSING],
        "late": sum(c.late for c in book.cells.values()),
        "late_policy": book.policy.describe() if book.deadline else None,
        "late_charges": [
            {"learner": c.learner, "task": c.task_id, **c.charge.to_dict()}
            for c in book.cells.values()
            if c.charge is not None
        ],
        "verdicts": {v: total[v] for v in Verdict if total[v]},
        "identical": sum(len(t["identical"]) for t in tasks.values()),
        "tasks": dict(sorted(tasks.items())),
        "skipped": [{"path": s.path, "why": s.why} for s in skipped],
    }


EMPTY = hashlib.sha256(b"").hexdigest()  # also what a submission refused unread hashes to


def identical(cells: list[Cell]) -> list[dict]:
    """The graded cells of one task whose code is another learner's too: a group per
    code (per content where the code cannot be read), largest first."""
    from ..runner import NOT_ATTEMPTED

    by_code: dict[str, list[Cell]] = defaultdict(list)
    for c in cells:
        sha = c.record.get("sha256")  # type: ignore[union-attr]  # graded cells
        if (
            not sha
            or sha == EMPTY
            or any(
                check.get("message", "").startswith(NOT_ATTEMPTED)
                for check in c.record.get("checks", [])  # type: ignore[union-attr]  # as above
            )
        ):
            continue
        by_code[c.code or sha].append(c)
    groups = []
    for group in by_code.values():
        if len({c.learner for c in group}) < 2:
            continue
        shas, files = sorted({c.record["sha256"] for c in group}), {c.file for c in group}  # type: ignore[index]  # as above
        groups.append(
            {
                "learners": sorted(c.learner for c in group),
                "sha256": shas,
                "same_bytes": len(shas) == 1,
                "same_file": len(files) == 1 and None not in files,
            }
        )
    return sorted(groups, key=lambda g: (-len(g["learners"]), g["learners"]))


def code_fingerprint(sub) -> str | None:
    """A hash of the submission's Python tokens (comments, blank lines and layout left
    out), or None where it is not readable Python."""
    from ..notebooks import NotebookError, notebook_from_bytes
    from ..runner import code_tokens
    from ..sources import python_text

    if sub.refused or not sub.source:
        return None
    try:
        text = (
            notebook_from_bytes(sub.source).text
            if sub.suffix == ".ipynb"
            else python_text(sub.source)
        )
        if text is None:
            return None
        tokens = code_tokens(text)
    except (NotebookError, SyntaxError, tokenize.TokenError):
        return None
    return hashlib.sha256(repr(tokens).encode("utf-8", "surrogatepass")).hexdigest()


def summary_json(*args, **kw) -> str:
    return json.dumps(summary(*args, **kw), indent=2, ensure_ascii=False) + "\n"


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
