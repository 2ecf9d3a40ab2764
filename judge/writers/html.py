"""HTML: the report as a page (``judge run --format html``, a batch's
``reports/<learner>/<task>.html``) or as a fragment a notebook shows (``check()``).

Self-contained: inline CSS and SVG, no script, nothing fetched (the page's
Content-Security-Policy forbids it), so it opens from a zip or an LMS as it is.  Every
string that came from a submission (messages, values, its output) is escaped.

A failed retrace check is drawn as the course draws it: one box per scripted call with
its shapes, marked traced, compiled or served from the cache, each compile numbered by
the program it made, so lengths 8, 16, 32, 8 show three programs and a cache hit.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ..scoring import number, outcome, score
from ..values import render_shown
from ..verdicts import Status, Verdict

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
VERDICT_COLORS = {
    Verdict.ACCEPTED: "#2e7d32", Verdict.INEFFICIENT: "#ef8f00", Verdict.WRONG_ANSWER: "#c62828",
    Verdict.RUNTIME_ERROR: "#8e2424", Verdict.TIME_LIMIT_EXCEEDED: "#6a1b9a",
    Verdict.MEMORY_LIMIT_EXCEEDED: "#4527a0", Verdict.INVALID_SUBMISSION: "#616161",
    Verdict.JUDGE_ERROR: "#ad1457"}
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


def write(report, stream, *, color: bool = False) -> None:
    stream.write(page(report))


def page(report, title: str | None = None) -> str:
    title = title or f"{report.task}: {report.verdict} ({report.submission})"
    return document(title, fragment(report, styled=False))


def document(title: str, body: str) -> str:
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n"
            f"<body class=\"jj\">\n{body}\n</body></html>\n")


def badge(verdict: Verdict, text: str | None = None) -> str:
    return (f"<span class=\"verdict\" style=\"background:{VERDICT_COLORS[verdict]}\">"
            f"{escape(text or verdict.upper().replace('_', ' '))}</span>")


def fragment(report, styled: bool = True) -> str:
    """The report as one ``<div>``; ``styled`` carries its own CSS (for a notebook)."""
    from .text import strict_note

    points = score(report)
    out = [f"<div class=\"jj jj-report\" data-verdict=\"{report.verdict}\">"]
    if styled:
        out.append(f"<style>{STYLE}</style>")
    note = strict_note(report)
    out.append(f"<div class=\"head\">{badge(report.verdict)}<b>{escape(report.task)}</b>"
               f"<span class=\"meta\">{escape(report.submission)}</span>"
               + (f"<span class=\"note\">{escape(note)}</span>" if note else "") + "</div>")
    out.append(f"<div class=\"meta\"><span data-points=\"{number(points.earned)}\" "
               f"data-max-points=\"{number(points.maximum)}\">{number(points.earned)} of "
               f"{number(points.maximum)} points</span> · seed {report.seed} · "
               f"{report.elapsed_s:.2f} s · isolation: {escape(report.isolation)}</div>")
    if report.notes:
        out.append("<ul class=\"notes\">" + "".join(f"<li>{escape(n)}</li>" for n in report.notes)
                   + "</ul>")
    out.append("<ol class=\"checks\">")
    for c, earned in zip(report.checks, points.checks):
        out.append(_check(report, c, earned))
    out.append("</ol>")
    for name in ("stdout", "stderr"):
        text = (report.output or {}).get(name) or ""
        if text:
            cut = " (truncated)" if report.output.get("truncated") else ""
            out.append(f"<details><summary>your {name}{cut}</summary><pre>{escape(text)}</pre></details>")
    out.append("</div>")
    return "\n".join(out)


def _check(report, c, earned) -> str:
    state, _ = outcome(c, report.strict)
    css = "advisory" if c.status.bad and state == Status.PASSED else c.status.value
    tag = "" if c.required else " <span class=\"tag\">(advisory" + \
        (", counted: --strict" if report.strict else "") + ")</span>"
    pts = f"<span class=\"pts\">{number(earned.earned)}/{number(earned.worth)}</span>" \
        if earned.worth else ""
    parts = [f"<li class=\"{css}\" data-check=\"{escape(c.id)}\" data-status=\"{c.status}\">"
             f"{pts}<span class=\"mark\">{MARKS[c.status]}</span> <b>{escape(c.id)}</b>{tag}"
             f"<pre>{escape(c.message)}</pre>"]
    if c.counterexample and c.status.bad:
        parts.append(counterexample_table(c.counterexample))
    if c.kind == "retrace" and c.status in (Status.PASSED, Status.FAILED):
        # passed too: the learner sees what 8, 16, 32 and 8 again cost, not only waste
        drawing = script_drawing(c.details)
        if drawing:
            parts.append(drawing)
    tb = c.details.get("traceback")
    if tb and c.status == Status.ERROR:
        parts.append(f"<details><summary>traceback</summary><pre>{escape(str(tb))}</pre></details>")
    if c.details.get("replay") and c.status.bad:
        parts.append("<details open class=\"replay\"><summary>call your function on exactly "
                     "this input (paste into a cell)</summary><pre><code>"
                     f"{escape(str(c.details['replay']))}</code></pre></details>")
    parts.append("</li>")
    return "".join(parts)


def counterexample_table(ce: dict) -> str:
    rows = [(name, v) for name, v in ce.get("args", {}).items()]
    rows += [(label, ce[key]) for key, label in (("expected", "expected"), ("actual", "got"))
             if key in ce]
    return "<table class=\"ce\">" + "".join(
        f"<tr><th>{escape(str(name))}</th><td><code>{escape(render_shown(v))}</code></td></tr>"
        for name, v in rows) + "</table>"


# ---------------------------------------------------------------- the script drawing

@dataclass(frozen=True)
class CallMark:
    number: int
    label: str            # the call's shapes: "x_a float32[8], x_b float32[8]"
    state: str            # traced | compiled | cached
    programs: tuple       # (program number, compiled before?) per compile in this call
    same_as: int | None   # a cached call: the earlier call with the same shapes
    why: str              # the first trace's reason


# a new program is what a new shape costs; the same program made again is the waste
FILL = {"new": "#e3f2fd", "again": "#fde0dc", "cached": "#dcedc8"}
STROKE = {"new": "#1565c0", "again": "#c62828", "cached": "#2e7d32"}


def script_marks(details: dict) -> list[CallMark]:
    """What each scripted call cost: traced (Python ran again), compiled only, or served
    from the cache; compiles numbered by the distinct program (function and signature)."""
    programs: dict[tuple, int] = {}
    marks: list[CallMark] = []
    for number_, (label, events) in enumerate(zip(details.get("calls") or [],
                                                  details.get("per_call") or []), 1):
        events = [e for e in events if isinstance(e, dict)]
        traces = [e for e in events if e.get("stage") == "trace"]
        made = []
        for e in events:
            if e.get("stage") == "compile":
                key = (e.get("group"), e.get("signature"))
                seen = key in programs
                programs.setdefault(key, len(programs) + 1)
                made.append((programs[key], seen))
        state = "traced" if traces else "compiled" if made else "cached"
        same = next((m.number for m in marks if m.label == label), None) if state == "cached" else None
        why = str(traces[0].get("reason") or "") if traces else ""
        marks.append(CallMark(number_, str(label), state, tuple(made), same, why))
    return marks


def drawing_key(details: dict) -> tuple:
    """Two drawings with the same key look the same (the class report draws it once)."""
    return tuple((m.label, m.state, m.programs) for m in script_marks(details))


def script_drawing(details: dict, per_row: int = 6) -> str:
    marks = script_marks(details)
    if not marks:
        return ""
    width, height, gap = 168, 96, 12
    cols = min(per_row, len(marks))
    rows = -(-len(marks) // cols)
    svg_w, svg_h = cols * (width + gap), rows * (height + gap)
    parts = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"script\" width=\"{svg_w}\" "
             f"height=\"{svg_h}\" viewBox=\"0 0 {svg_w} {svg_h}\" role=\"img\" "
             f"aria-label=\"scripted calls\">"]
    for i, m in enumerate(marks):
        x, y = (i % cols) * (width + gap), (i // cols) * (height + gap)
        what, which = _state_lines(m)
        lines = [f"call {m.number}"] + m.label.split(", ")[:2] + [what, which]
        tip = f"call {m.number}: {m.label}: {what} {which}" + (f" ({m.why})" if m.why else "")
        look = _look(m)
        parts.append(f"<g class=\"call {m.state}\" data-call=\"{m.number}\" data-state=\"{m.state}\">"
                     f"<title>{escape(tip)}</title>"
                     f"<rect x=\"{x + 1}\" y=\"{y + 1}\" width=\"{width - 2}\" height=\"{height - 2}\" "
                     f"rx=\"6\" fill=\"{FILL[look]}\" stroke=\"{STROKE[look]}\"/>")
        for j, line in enumerate(lines):
            weight = " font-weight=\"600\"" if j in (0, len(lines) - 2) else ""
            parts.append(f"<text x=\"{x + 8}\" y=\"{y + 18 + j * 17}\" font-size=\"12\" "
                         f"font-family=\"ui-monospace, monospace\"{weight}>"
                         f"{escape(_fit(line, 22))}</text>")
        parts.append("</g>")
    parts.append("</svg>")
    return (f"<figure class=\"script\">{''.join(parts)}<figcaption>{escape(script_caption(marks))}"
            f"</figcaption></figure>")


def script_caption(marks: list[CallMark]) -> str:
    compiles = sum(len(m.programs) for m in marks)
    distinct = len({p for m in marks for p, _ in m.programs})
    cached = sum(m.state == "cached" for m in marks)
    traced = sum(m.state == "traced" for m in marks)
    calls = f"{len(marks)} scripted call{'s' if len(marks) != 1 else ''}"
    made = f"{distinct} program{'s' if distinct != 1 else ''}"
    if compiles > distinct:
        made += f", compiled {compiles} times"
    return (f"{calls}: {made}; {traced} traced, {cached} served from the cache "
            "(blue: a new program, red: one made before made again, green: reused)")


def _look(m: CallMark) -> str:
    if m.state == "cached":
        return "cached"
    return "again" if not m.programs or any(seen for _, seen in m.programs) else "new"


def _state_lines(m: CallMark) -> tuple[str, str]:
    if m.state == "cached":
        return "served from cache", f"(as call {m.same_as})" if m.same_as else ""
    what = "traced + compiled" if m.state == "traced" and m.programs else m.state
    if not m.programs:
        return what, "(nothing compiled)"
    which = ", ".join(f"#{p}" for p, _ in m.programs)
    again = any(seen for _, seen in m.programs)
    return what, (f"program {which} again" if again else f"new program {which}")


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
