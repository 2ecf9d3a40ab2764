"""The report contract, pinned by golden files, without a process: every writer renders
each report stored in tests/golden/batch/results.jsonl (graded by
tests/integration/test_golden.py) exactly as tests/golden/writers/ holds it.
Regenerate: tests/golden/README.md."""

from __future__ import annotations

import json

from judge.report import Report
from judge.writers import FORMATS

from helpers.golden import GOLDEN, SUFFIX, compare_tree, render, updating


def golden_reports() -> list[dict]:
    path = GOLDEN / "batch" / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def test_writers_render_the_golden_reports_as_pinned(request):
    """Every format of each stored grading, rendered from the golden results.jsonl (no
    worker started): text and json, which the batch does not emit, are pinned here."""
    got = {}
    for record in golden_reports():
        report = Report.from_dict(record)
        for fmt in FORMATS:
            got[f"{record['learner']}/{record['task']}.{SUFFIX[fmt]}"] = render(report, fmt)
    assert len(got) == 7 * len(FORMATS)
    compare_tree(got, GOLDEN / "writers", updating(request.config))


def test_golden_cases_cover_every_learner_verdict():
    verdicts = {(r["learner"], r["task"]): r["verdict"] for r in golden_reports()}
    assert set(verdicts.values()) == {
        "accepted",
        "wrong_answer",
        "inefficient",
        "invalid_submission",
    }
    assert verdicts[("eve", "cache_independent_count")] == "accepted"  # advisory failed
