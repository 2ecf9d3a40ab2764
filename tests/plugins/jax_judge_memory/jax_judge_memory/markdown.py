"""``markdown``: a report as Markdown, for a course's forum or a pull request comment
(``judge run --format markdown``, ``judge batch --emit markdown``)."""

from __future__ import annotations

NAME = "markdown"


def emit_path(learner: str, task_id: str) -> str:
    return f"{learner}/{task_id}.md"


def write(report, stream, *, color: bool = False) -> None:
    stream.write(f"# {report.task}: {report.verdict}\n\n")
    for c in report.checks:
        first = (c.message.splitlines() or [""])[0]
        stream.write(f"- **{c.id}** ({c.kind}): {c.status}: {first}\n")
