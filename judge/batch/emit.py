"""Per-submission files in the formats other platforms read (``--emit``), each a view
of the stored report, rebuilt from results.jsonl like the gradebook, at
``OUT/<format>/<the format's emit_path>`` (judge/writers/: the format's own module says
where, e.g. ``OUT/junit/<learner>/<task>.xml``; a format that says nothing is not
emitted).

A missing submission gets its file too (score 0, and the reason): a platform that finds
no results file shows a broken grader instead.
"""

from __future__ import annotations

from pathlib import Path

from ..writers import emit_formats, render, writers
from .gradebook import MISSING, Gradebook, cell_report
from .store import write_atomic


def emit_path(out: Path, fmt: str, learner: str, task_id: str) -> Path:
    relative = writers()[fmt].emit_path(learner, task_id)  # type: ignore[misc]  # an emit format: it has one
    return out / fmt / relative


__all__ = ["emit_all", "emit_formats", "emit_path"]


def emit_all(out: Path, book: Gradebook, formats: list[str], missing_report) -> None:
    """``missing_report(cell)``: the Report standing for a missing submission."""
    if not formats:
        return
    for cell in book.cells.values():
        if cell.graded:
            report = cell_report(cell)  # a late policy's charge on it
        elif cell.state == MISSING:
            report = missing_report(cell)
        else:
            continue  # pending: its file comes when it is graded
        for fmt in formats:
            path = emit_path(out, fmt, cell.learner, cell.task_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, render(fmt, [report]))
