"""Per-submission files in the formats other platforms read (``--emit``), each a view
of the stored report, rebuilt from results.jsonl like the gradebook:

    OUT/exercism/<learner>/<task>/results.json
    OUT/gradescope/<learner>/<task>/results.json
    OUT/junit/<learner>/<task>.xml

A missing submission gets its file too (score 0, and the reason): a platform that finds
no results file shows a broken grader instead.
"""

from __future__ import annotations

import io
from pathlib import Path

from ..writers import writer
from .gradebook import MISSING, Gradebook, cell_report
from .store import write_atomic

EMIT_FORMATS = ("exercism", "gradescope", "junit")


def emit_path(out: Path, fmt: str, learner: str, task_id: str) -> Path:
    if fmt == "junit":
        return out / fmt / learner / f"{task_id}.xml"
    return out / fmt / learner / task_id / "results.json"


def emit_all(out: Path, book: Gradebook, formats: list[str], missing_report) -> None:
    """``missing_report(cell)``: the Report standing for a missing submission."""
    if not formats:
        return
    for cell in book.cells.values():
        if cell.graded:
            report = cell_report(cell)     # a late policy's charge on it
        elif cell.state == MISSING:
            report = missing_report(cell)
        else:
            continue                      # pending: its file comes when it is graded
        for fmt in formats:
            buf = io.StringIO()
            writer(fmt)(report, buf)
            path = emit_path(out, fmt, cell.learner, cell.task_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, buf.getvalue())
