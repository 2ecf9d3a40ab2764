"""HTML: the report as a page (``judge run --format html``, a batch's
``reports/<learner>/<task>.html``) or as a fragment a notebook shows (``check()``).

Self-contained: inline CSS and SVG, no script, nothing fetched (the page's
Content-Security-Policy forbids it), so it opens from a zip or an LMS as it is.  Every
string that came from a submission (messages, values, its output) is escaped.

Whatever a check kind draws besides its message (the retrace kind's picture of its
scripted calls) is the kind's own: its ``html(result)`` (judge/checks/base.py).
"""

from __future__ import annotations

from html import escape

from ..checks import kind_of
from ..scoring import number, outcome, score
from ..values import render_shown
from ..verdicts import Status, Verdict

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
VERDICT_COLORS = {
    Verdict.ACCEPTED: "#2e7d32",
    Verdict.INEFFICIENT: "#ef8f00",
    Verdict.WRONG_ANSWER: "#c62828",
    Verdict.RUNTIME_ERROR: "#8e2424",
    Verdict.TIME_LIMIT_EXCEEDED: "#6a1b9a",
    Verdict.MEMORY_LIMIT_EXCEEDED: "#4527a0",
    Verdict.INVALID_SUBMISSION: "#616161",
    Verdict.JUDGE_ERROR: "#ad1457",
}
MARKS = {Status.PASSED: "ok", Status.FAILED: "FAIL", Status.ERROR: "ERR", Status.SKIPPED: "skip"}
STYLE = """
.jj { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1d; }
.jj h1, .jj h2, .jj h3 { font-weight: 600; margin: 1.2em 0 .4em; }
.jj h1 { font-size: 1.5em; } .jj h2 { font-size: 1.25em; } .jj h3 { font-size: 1.05em; }
.jj code, .jj pre { font: 12.5px/1.4 ui-monospace, "SFMono-Regular", Menlo, monospace; }
.jj pre { white-space: pre-wrap; word-break: break-word; margin: .3em 0; }
.jj .head { display: flex; flex-wrap: wrap; gap: .6em; align-items: baseline; }
.jj .verdict { color: #fff; font-weight: 700; padding: .15em .6em; border-radius: 4px; }
.jj .note { color: #8a5a00; }
.jj .meta { color: #555; font-size: .92em; }
.jj ol.checks { list-style: none; padding: 0; margin: .6em 0; }
.jj ol.checks > li { border-left: 4px solid #c8c8c8; padding: .25em .7em; margin: .35em 0; }
.jj li.passed { border-color: #2e7d32; } .jj li.failed, .jj li.error { border-color: #c62828; }
.jj li.advisory { border-color: #ef8f00; } .jj li.skipped { border-color: #9e9e9e; }
.jj .mark { display: inline-block; min-width: 2.6em; font-weight: 700; }
.jj .tag { color: #666; font-size: .9em; }
.jj .pts { float: right; color: #555; }
.jj table { border-collapse: collapse; margin: .3em 0; }
.jj th, .jj td { text-align: left; padding: .2em .6em; border-bottom: 1px solid #e4e4e4;
                 vertical-align: top; }
.jj table.ce th { color: #555; font-weight: 500; }
.jj details { margin: .3em 0; } .jj summary { cursor: pointer; color: #444; }
.jj figure { margin: .5em 0; } .jj figcaption { color: #444; font-size: .92em; }
"""


NAME = "html"


def write(report, stream, *, color: bool = False) -> None:
    stream.write(page(report))


def write_many(reports, stream, *, color: bool = False) -> None:
    """One page for one submission graded against several tasks (``judge run --tasks``):
    a table of the tasks (verdict, points, a link to each), then a section per task, the
    same as its own page shows.  One page, as ``--format html > week3.html`` writes one
    file and the notebook it grades is one file too."""
    submission = reports[0].submission if reports else ""
    earned = maximum = 0.0
    rows = []
    for r in reports:
        points = score(r)
        earned, maximum = earned + points.earned, maximum + points.maximum
        rows.append(
            f'<tr data-task="{escape(r.task)}"><td><a href="#task-{escape(r.task)}">'
            f"{escape(r.task)}</a></td><td>{badge(r.verdict)}</td>"
            f"<td>{number(points.earned)} of {number(points.maximum)}</td></tr>"
        )
    head = (
        f"<h1>{escape(submission)}: {len(reports)} tasks</h1>"
        f'<p class="meta" data-points="{number(earned)}" data-max-points="{number(maximum)}">'
        f"{number(earned)} of {number(maximum)} points in all</p>"
        '<table class="tasks"><tr><th>task</th><th>verdict</th><th>points</th></tr>'
        + "".join(rows)
        + "</table>"
    )
    sections = [
        f'<section id="task-{escape(r.task)}"><h2>{escape(r.task)}</h2>\n'
        f"{fragment(r, styled=False)}\n</section>"
        for r in reports
    ]
    title = f"{submission}: " + ", ".join(f"{r.task} {r.verdict}" for r in reports)
    stream.write(document(title, "\n".join([head, *sections])))


def page(report, title: str | None = None) -> str:
    title = title or f"{report.task}: {report.verdict} ({report.submission})"
    return document(title, fragment(report, styled=False))


def document(title: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n"
        f'<body class="jj">\n{body}\n</body></html>\n'
    )


def badge(verdict: Verdict, text: str | None = None) -> str:
    return (
        f'<span class="verdict" style="background:{VERDICT_COLORS[verdict]}">'
        f"{escape(text or verdict.upper().replace('_', ' '))}</span>"
    )


def fragment(report, styled: bool = True) -> str:
    """The report as one ``<div>``; ``styled`` carries its own CSS (for a notebook)."""
    from .text import strict_note

    points = score(report)
    out = [f'<div class="jj jj-report" data-verdict="{report.verdict}">']
    if styled:
        out.append(f"<style>{STYLE}</style>")
    note = strict_note(report)
    out.append(
        f'<div class="head">{badge(report.verdict)}<b>{escape(report.task)}</b>'
        f'<span class="meta">{escape(report.submission)}</span>'
        + (f'<span class="note">{escape(note)}</span>' if note else "")
        + "</div>"
    )
    out.append(
        f'<div class="meta"><span data-points="{number(points.earned)}" '
        f'data-max-points="{number(points.maximum)}">{number(points.earned)} of '
        f"{number(points.maximum)} points</span> · seed {report.seed} · "
        f"{report.elapsed_s:.2f} s · isolation: {escape(report.isolation)}</div>"
    )
    if report.notes:
        out.append(
            '<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in report.notes) + "</ul>"
        )
    out.append('<ol class="checks">')
    for c, earned in zip(report.checks, points.checks):
        out.append(_check(report, c, earned))
    out.append("</ol>")
    for name in ("stdout", "stderr"):
        text = (report.output or {}).get(name) or ""
        if text:
            cut = " (truncated)" if report.output.get("truncated") else ""
            out.append(
                f"<details><summary>your {name}{cut}</summary><pre>{escape(text)}</pre></details>"
            )
    out.append("</div>")
    return "\n".join(out)


def _check(report, c, earned) -> str:
    state, _ = outcome(c, report.strict)
    css = "advisory" if c.status.bad and state == Status.PASSED else c.status.value
    tag = (
        ""
        if c.required
        else ' <span class="tag">(advisory'
        + (", counted: --strict" if report.strict else "")
        + ")</span>"
    )
    pts = (
        f'<span class="pts">{number(earned.earned)}/{number(earned.worth)}</span>'
        if earned.worth
        else ""
    )
    parts = [
        f'<li class="{css}" data-check="{escape(c.id)}" data-status="{c.status}">'
        f'{pts}<span class="mark">{MARKS[c.status]}</span> <b>{escape(c.id)}</b>{tag}'
        f"<pre>{escape(c.message)}</pre>"
    ]
    if c.counterexample and c.status.bad:
        parts.append(counterexample_table(c.counterexample))
    kind = kind_of(c.kind)
    if kind is not None:
        parts.append(kind.html(c))
    tb = c.details.get("traceback")
    if tb and c.status == Status.ERROR:
        parts.append(f"<details><summary>traceback</summary><pre>{escape(str(tb))}</pre></details>")
    if c.details.get("replay") and c.status.bad:
        parts.append(
            '<details open class="replay"><summary>call your function on exactly '
            "this input (paste into a cell)</summary><pre><code>"
            f"{escape(str(c.details['replay']))}</code></pre></details>"
        )
    parts.append("</li>")
    return "".join(parts)


def counterexample_table(ce: dict) -> str:
    rows = [(name, v) for name, v in ce.get("args", {}).items()]
    rows += [
        (label, ce[key])
        for key, label in (("expected", "expected"), ("actual", "got"))
        if key in ce
    ]
    return (
        '<table class="ce">'
        + "".join(
            f"<tr><th>{escape(str(name))}</th><td><code>{escape(render_shown(v))}</code></td></tr>"
            for name, v in rows
        )
        + "</table>"
    )
