"""Per-submission files in the formats other platforms read (``--emit``), each a view
of the stored report, rebuilt from results.jsonl like the gradebook:

    OUT/exercism/<learner>/<task>/results.json
    OUT/gradescope/<learner>/<task>/results.json
    OUT/junit/<learner>/<task>.xml
"""

from __future__ import annotations

import io
from pathlib import Path

from .batch_gradebook import write_atomic
from .report import Report
from .writers import writer

EMIT_FORMATS = ("exercism", "gradescope", "junit")


def emit_path(out: Path, fmt: str, learner: str, task_id: str) -> Path:
    if fmt == "junit":
        return out / fmt / learner / f"{task_id}.xml"
    return out / fmt / learner / task_id / "results.json"


def emit_all(out: Path, records: list[dict], formats: list[str]) -> None:
    for record in records:
        report = Report.from_dict(record)
        for fmt in formats:
            buf = io.StringIO()
            writer(fmt)(report, buf)
            path = emit_path(out, fmt, record["learner"], record["task"])
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, buf.getvalue())
