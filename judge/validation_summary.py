"""The one line that ends a task's `judge validate` text: what passed and what did not
apply, beside the failures listed above it (which alone would leave an author guessing
whether the float16 check ran at all)."""

from __future__ import annotations

import re

# the words validate's items use for a check that did not apply to the task
_NOT_APPLICABLE = re.compile(r"not applicable|not needed|skipped|no dodge-labelled")


def summary_line(report) -> str:
    """``passed: files, known, ...; did not apply: accuracy, tolerance; failed: finite``."""
    passed, not_applicable, failed = [], [], []
    for c in report.checks:
        if c.status != "passed":
            failed.append(c.id)
        elif _NOT_APPLICABLE.search(c.message):
            not_applicable.append(c.id)
        else:
            passed.append(c.id)
    parts = [f"passed {len(passed)}: {_names(passed)}" if passed else "passed: none"]
    if not_applicable:
        parts.append(f"did not apply: {_names(not_applicable)}")
    if failed:
        parts.append(f"failed: {_names(failed)}")
    return "  " + "; ".join(parts)


def _names(ids: list[str]) -> str:
    """Known submissions' items folded into one count (a task has dozens)."""
    known = [i for i in ids if i.startswith("known:")]
    rest = [i for i in ids if not i.startswith("known:")]
    return ", ".join(
        rest + ([f"{len(known)} known submission{'s' if len(known) != 1 else ''}"] if known else [])
    )
