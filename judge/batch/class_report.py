"""``OUT/report.html``: the class at a glance, for the instructor; and
``OUT/reports/<learner>/<task>.html``, each grading's own page, which it links to.

One self-contained page (inline CSS and SVG, no script, nothing fetched): pass rates
per task and per check, the verdict distribution per task as a chart, the most common
failure causes with their counts and the learners behind them, each distinct failure a
check kind draws (its ``class_key`` and ``html``: the retrace kind's failed scripts)
once, with who drew it, the identical submissions (one content handed in by several
learners for a task), and a table of learners linking to every grading.  Its numbers
are summary.json's (the same ``summary()``), marked with ``data-`` attributes so a test
can read them back.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from urllib.parse import quote

from ..checks import kind_of
from ..scoring import number
from ..verdicts import Verdict
from ..writers.html import VERDICT_COLORS, badge, document, page
from .gradebook import MISSING, PENDING, Gradebook, cell_report, summary
from .store import write_atomic

REPORTS = "reports"
EXTRA_STYLE = """
.jj .cards { display: flex; gap: 1em; flex-wrap: wrap; margin: .6em 0; }
.jj .card { border: 1px solid #ddd; border-radius: 6px; padding: .5em .9em; min-width: 7em; }
.jj .card b { display: block; font-size: 1.4em; }
.jj .legend span { display: inline-block; margin-right: 1em; }
.jj .legend i { display: inline-block; width: .9em; height: .9em; margin-right: .3em;
               vertical-align: -.1em; border-radius: 2px; }
.jj td.cell a { text-decoration: none; }
.jj td.missing, .jj td.pending { color: #888; font-style: italic; }
.jj .late { color: #b71c1c; font-size: .85em; margin-left: .3em; }
.jj section { margin-bottom: 1.6em; }
"""


def report_path(learner: str, task_id: str) -> str:
    """Where a grading's page lives, relative to OUT (and as the class page links it)."""
    return f"{REPORTS}/{learner}/{task_id}.html"


def write_pages(out: Path, book: Gradebook, skipped: list, options: dict) -> None:
    for cell in book.cells.values():
        if cell.graded:
            path = out / report_path(cell.learner, cell.task_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(
                path,
                page(
                    cell_report(cell),  # a late policy's charge on it
                    f"{cell.learner} / {cell.task_id}: {cell.state}",
                ),
            )
    write_atomic(out / "report.html", class_page(book, skipped, options))


def class_page(book: Gradebook, skipped: list, options: dict) -> str:
    s = summary(book, skipped, options)
    body = [
        f"<style>{EXTRA_STYLE}</style>",
        "<h1>Class report</h1>",
        _overview(s, book),
        _tasks(s, book),
        _checks(s),
        _failures(s),
        _identical(s),
        _drawings(book),
        _learners(book),
        _skipped(s),
    ]
    return document("Class report", "\n".join(b for b in body if b))


def _overview(s: dict, book: Gradebook) -> str:
    opts = s["options"]
    said = ", ".join(f"{k} {v}" for k, v in opts.items() if v not in (None, False))
    cards = [
        ("graded", s["graded"]),
        ("accepted", s["verdicts"].get(Verdict.ACCEPTED, 0)),
        ("pending", s["pending"]),
        ("missing", s["missing"]),
        ("late", s["late"]),
        ("learners", len(book.learners)),
    ]
    return (
        '<div class="cards">'
        + "".join(f'<div class="card"><b data-summary="{k}">{v}</b>{k}</div>' for k, v in cards)
        + "</div>"
        + f'<p class="meta">judge {escape(s["judge_version"])}'
        + (f"; options: {escape(said)}" if said else "")
        + "</p>"
    )


def _tasks(s: dict, book: Gradebook) -> str:
    if not s["tasks"]:
        return "<section><h2>Tasks</h2><p>Nothing graded yet.</p></section>"
    rows = []
    for task_id, t in s["tasks"].items():
        rows.append(
            f'<tr data-task="{escape(task_id)}"><th>{escape(task_id)}</th>'
            f'<td data-metric="graded">{t["graded"]}</td>'
            f'<td data-metric="accepted">{t["verdicts"].get(Verdict.ACCEPTED, 0)}</td>'
            f'<td data-metric="pass_rate" data-value="{t["pass_rate"]}">'
            f"{_percent(t['pass_rate'])}</td>"
            f'<td data-metric="mean_points" data-value="{t["points"]["mean"]}">'
            f"{t['points']['mean']} of {t['points']['max']}</td>"
            f"<td>{_bar(task_id, t)}</td></tr>"
        )
    legend = "".join(
        f'<span><i style="background:{VERDICT_COLORS[v]}"></i>{v}</span>'
        for v in Verdict
        if any(v in t["verdicts"] for t in s["tasks"].values())
    )
    return (
        "<section><h2>Tasks</h2><table><tr><th>task</th><th>graded</th><th>accepted</th>"
        "<th>pass rate</th><th>mean points</th><th>verdicts</th></tr>"
        + "".join(rows)
        + f'</table><div class="legend">{legend}</div></section>'
    )


def _bar(task_id: str, t: dict, width: int = 360, height: int = 18) -> str:
    """The task's verdicts as one stacked bar, a segment per verdict."""
    total = sum(t["verdicts"].values()) or 1
    x, parts = 0.0, []
    for verdict, count in t["verdicts"].items():
        w = width * count / total
        parts.append(
            f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{height}" '
            f'fill="{VERDICT_COLORS[Verdict(verdict)]}" data-verdict="{verdict}" '
            f'data-count="{count}"><title>{verdict}: {count}</title></rect>'
        )
        if w > 22:
            parts.append(
                f'<text x="{x + w / 2:.2f}" y="13" font-size="11" fill="#fff" '
                f'text-anchor="middle">{count}</text>'
            )
        x += w
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bar" data-task="{escape(task_id)}" '
        f'width="{width}" height="{height}" role="img" '
        f'aria-label="verdicts of {escape(task_id)}">{"".join(parts)}</svg>'
    )


def _checks(s: dict) -> str:
    rows = []
    for task_id, t in s["tasks"].items():
        for cid, counts in t["checks"].items():
            rate = t["check_pass_rates"][cid]
            rows.append(
                f'<tr data-task="{escape(task_id)}" data-check="{escape(cid)}">'
                f"<td>{escape(task_id)}</td><th>{escape(cid)}</th>"
                + "".join(
                    f'<td data-status="{k}">{counts.get(k, 0)}</td>'
                    for k in ("passed", "failed", "error", "skipped")
                )
                + f'<td data-metric="check_pass_rate" data-value="{rate}">'
                f"{_percent(rate)}</td></tr>"
            )
    if not rows:
        return ""
    return (
        "<section><h2>Checks</h2><table><tr><th>task</th><th>check</th><th>passed</th>"
        "<th>failed</th><th>error</th><th>skipped</th><th>pass rate</th></tr>"
        + "".join(rows)
        + "</table></section>"
    )


def _failures(s: dict) -> str:
    blocks = []
    for task_id, t in s["tasks"].items():
        if not t["common_failures"]:
            continue
        items = []
        for g in t["common_failures"]:
            who = ", ".join(
                f'<a href="{_link(name, task_id)}">{escape(name)}</a>' for name in g["learners"]
            )
            items.append(
                f'<li data-task="{escape(task_id)}" data-check="{escape(g["check"])}" '
                f'data-count="{g["count"]}"><b>{g["count"]}×</b> '
                f"<code>{escape(g['check'])}</code>: <pre>{escape(g['example'])}</pre>"
                f'<span class="meta">{who}</span></li>'
            )
        blocks.append(f"<h3>{escape(task_id)}</h3><ol>{''.join(items)}</ol>")
    if not blocks:
        return ""
    return "<section><h2>Most common failures</h2>" + "".join(blocks) + "</section>"


def _identical(s: dict) -> str:
    """One content handed in by several learners for a task: for the instructor to look
    at (the judge cannot tell a copy from a shared file or a pair's work)."""
    items = []
    for task_id, t in s["tasks"].items():
        for g in t["identical"]:
            who = ", ".join(
                f'<a href="{_link(name, task_id)}" data-learner="{escape(name)}">{escape(name)}</a>'
                for name in g["learners"]
            )
            how = (
                "one file on disk under each name (a hard link)"
                if g["same_file"]
                else "the same file, byte for byte"
                if g["same_bytes"]
                else "the same code, comments and layout aside"
            )
            shas = " ".join(sha[:12] for sha in g["sha256"])
            items.append(
                f'<li data-task="{escape(task_id)}" data-sha256="{" ".join(g["sha256"])}" '
                f'data-count="{len(g["learners"])}"><b>{escape(task_id)}</b>: '
                f"{len(g['learners'])} learners handed in {how}: {who} "
                f'<span class="meta">sha256 {shas}</span></li>'
            )
    if not items:
        return ""
    return (
        '<section><h2>Identical submissions</h2><p class="meta">The same code from '
        "different learners for one task, for you to look at: a copy, a pair's work or a "
        "shared file (a task's untouched starter is not listed).</p><ul>"
        + "".join(items)
        + "</ul></section>"
    )


def _drawings(book: Gradebook) -> str:
    """Each distinct failure a check kind draws (its ``class_key`` and ``html``: the
    retrace kind's failed scripts) once, with the learners whose run it is; a section
    per kind, under the kind's ``CLASS_SECTION``."""
    seen: dict[tuple, dict] = {}
    for cell in book.cells.values():
        if not cell.graded:
            continue
        for c in cell_report(cell).checks:
            kind = kind_of(c.kind)
            key = kind.class_key(c) if kind is not None and kind.CLASS_SECTION else None
            if key is None:
                continue
            entry = seen.setdefault(
                (c.kind, cell.task_id, c.id, key),
                {
                    "result": c,
                    "learners": [],
                    "kind": kind,
                    "message": (c.message.splitlines() or [""])[0],
                },
            )
            entry["learners"].append(cell.learner)
    sections: dict[str, list[str]] = {}
    for (kind_name, task_id, cid, _), entry in sorted(
        seen.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], -len(kv[1]["learners"]))
    ):
        who = ", ".join(
            f'<a href="{_link(n, task_id)}">{escape(n)}</a>' for n in sorted(entry["learners"])
        )
        sections.setdefault(kind_name, []).append(
            f'<div class="{escape(kind_name)}" data-kind="{escape(kind_name)}" '
            f'data-task="{escape(task_id)}" '
            f'data-check="{escape(cid)}"><h3>{escape(task_id)} · {escape(cid)} '
            f'<span class="meta">({len(entry["learners"])})</span></h3>'
            f'<p class="meta">{escape(entry["message"])}</p>'
            f'{entry["kind"].html(entry["result"])}<p class="meta">{who}</p></div>'
        )
    return "".join(
        f"<section><h2>{escape(kind_of(name).CLASS_SECTION)}</h2>"  # type: ignore[union-attr]  # a kind that ran
        + "".join(blocks)
        + "</section>"
        for name, blocks in sections.items()
    )


def _learners(book: Gradebook) -> str:
    head = "".join(f"<th>{escape(t)}</th>" for t in book.columns)
    rows = []
    for learner in book.learners:
        cells = []
        for task_id in book.columns:
            cell = book.cell(learner, task_id)
            late = '<span class="late">late</span>' if cell.late else ""
            if cell.graded:
                verdict = Verdict(cell.state)
                cells.append(
                    f'<td class="cell" data-learner="{escape(learner)}" '
                    f'data-task="{escape(task_id)}" data-verdict="{verdict}">'
                    f'<a href="{_link(learner, task_id)}">{badge(verdict, verdict.short)}</a> '
                    f"{number(cell.points)}{late}</td>"
                )
            else:
                title = f' title="{escape(cell.why)}"' if cell.state == MISSING else ""
                cells.append(
                    f'<td class="{cell.state}" data-learner="{escape(learner)}" '
                    f'data-task="{escape(task_id)}" data-verdict="{cell.state}"{title}>'
                    f"{cell.state}{late}</td>"
                )
        rows.append(
            f'<tr data-learner="{escape(learner)}"><th>{escape(learner)}</th>'
            + "".join(cells)
            + f'<td data-metric="score">{number(book.total(learner))}'
            f" of {number(book.max_total)}</td></tr>"
        )
    return (
        "<section><h2>Learners</h2><table><tr><th>learner</th>"
        + head
        + "<th>points</th></tr>"
        + "".join(rows)
        + "</table>"
        f'<p class="meta">{PENDING}: handed in, not graded yet; {MISSING}: nothing gradable '
        "handed in (hover for why). Each verdict links to that grading's report.</p></section>"
    )


def _skipped(s: dict) -> str:
    if not s["skipped"]:
        return ""
    items = "".join(
        f"<li><code>{escape(x['path'])}</code>: {escape(x['why'])}</li>" for x in s["skipped"]
    )
    return f"<section><h2>Not graded</h2><ul>{items}</ul></section>"


def _link(learner: str, task_id: str) -> str:
    return escape(quote(report_path(learner, task_id)))


def _percent(rate: float) -> str:
    return f"{rate * 100:.0f}%"
