"""The report as HTML for a page: the service's page shows it, and any page that shows a
grading (a class report) can.  A view of the same report object as every writer; the
styles are in ``report_html.css`` beside this file (``css()``).

Verdict first, then one item per check as the text report has it: its message (the
retrace explanation included), the counterexample, the last lines of a traceback.  A
retrace check also gets its scripted calls drawn as the course draws them: one box per
call with its shapes, marked *traced*, *compiled* or *from the cache*, so 8, 16, 32
and 8 again reads as three programs, not four.

Everything that came from the learner (messages quote their values, their prints) is
escaped: a submission cannot put markup on the page.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from .report import CheckResult, Report
from .writers.text import value_text

MARKS = {"passed": "ok", "failed": "failed", "error": "error", "skipped": "skipped"}
SHOWN_OUTPUT_LINES = 40


def css() -> str:
    return (Path(__file__).with_name("report_html.css")).read_text(encoding="utf-8")


def report_fragment(data: dict) -> str:
    """One ``<section>`` for a report (the ``judge run --format json`` object)."""
    report = Report.from_dict(data)
    verdict = report.verdict.value
    advisory = [c for c in report.checks if c.status.bad and not c.required and not report.strict]
    parts = [f'<section class="jj-report" data-verdict="{escape(verdict)}">',
             f'<p class="jj-verdict jj-v-{escape(verdict)}">{escape(verdict.upper().replace("_", " "))}</p>',
             f'<p class="jj-meta">{escape(report.task)} · seed {report.seed} · '
             f'{report.elapsed_s:.2f} s · isolation: {escape(report.isolation)}</p>']
    if advisory and verdict == "accepted":
        parts.append(f'<p class="jj-note">an advisory check failed ({escape(", ".join(c.id for c in advisory))}): '
                     'it counts only under strict grading</p>')
    parts.append('<ol class="jj-checks">')
    parts += [_check(c, report.strict) for c in report.checks]
    parts.append("</ol>")
    parts.append(_output(report.output))
    parts.append("</section>")
    return "\n".join(parts)


def _check(c: CheckResult, strict: bool) -> str:
    status = c.status.value
    first, *rest = c.message.splitlines() or [""]
    tag = "" if c.required else ' <span class="jj-advisory">advisory</span>'
    out = [f'<li class="jj-check jj-s-{escape(status)}" data-check="{escape(c.id)}" '
           f'data-status="{escape(status)}">',
           f'<p class="jj-head"><span class="jj-mark">{MARKS[status]}</span> '
           f'<b>{escape(c.id)}</b>{tag} <span class="jj-kind">{escape(c.kind)}</span></p>',
           f'<p class="jj-message">{escape(first)}</p>']
    if rest:
        out.append(f'<pre class="jj-explain">{escape(chr(10).join(rest))}</pre>')
    if c.counterexample and c.status.bad:
        out.append(_counterexample(c.counterexample))
    if c.kind == "retrace" and c.details.get("calls"):
        out.append(retrace_diagram(c.details))
    tb = c.details.get("traceback")
    if tb and status == "error":
        lines = str(tb).rstrip().splitlines()[-8:]
        out.append(f'<pre class="jj-traceback">{escape(chr(10).join(lines))}</pre>')
    out.append("</li>")
    return "\n".join(out)


def _counterexample(ce: dict) -> str:
    rows = [(name, value_text(v)) for name, v in ce.get("args", {}).items()]
    if "expected" in ce:
        rows.append(("expected", value_text(ce["expected"])))
    if "actual" in ce:
        rows.append(("got", value_text(ce["actual"])))
    body = "".join(f'<tr class="jj-ce-{"arg" if i < len(ce.get("args", {})) else escape(k)}">'
                   f"<th>{escape(k)}</th><td><code>{escape(v)}</code></td></tr>"
                   for i, (k, v) in enumerate(rows))
    return f'<table class="jj-counterexample"><caption>counterexample</caption>{body}</table>'


def call_states(details: dict) -> list[dict]:
    """Per scripted call: its shapes, and whether the learner's jitted code traced,
    compiled, or was served from the cache (or the call did not run)."""
    calls = details.get("calls") or []
    per_call = details.get("per_call") or []
    out = []
    for i, label in enumerate(calls):
        if i >= len(per_call):
            out.append({"call": i + 1, "label": label, "state": "not_run", "traces": 0,
                        "compiles": 0, "reasons": []})
            continue
        events = [e for e in per_call[i] if isinstance(e, dict)]
        traces = [e for e in events if e.get("stage") == "trace"]
        compiles = [e for e in events if e.get("stage") == "compile"]
        state = "traced" if traces else "compiled" if compiles else "cached"
        reasons = [f"{e.get('group')}: {str(e.get('reason') or '').split('; ')[0]}"
                   for e in traces if e.get("reason")]
        out.append({"call": i + 1, "label": label, "state": state, "traces": len(traces),
                    "compiles": len(compiles), "reasons": reasons})
    return out


STATE_WORDS = {"traced": "traced + compiled", "compiled": "compiled",
               "cached": "from the cache", "not_run": "not run"}


def retrace_diagram(details: dict) -> str:
    calls = call_states(details)
    programs = sum(c["compiles"] for c in calls)
    hits = sum(1 for c in calls if c["state"] == "cached")
    boxes = []
    for c in calls:
        state = c["state"]
        words = STATE_WORDS[state]
        if state == "traced" and c["compiles"] != c["traces"]:
            words = f"traced ×{c['traces']}, compiled ×{c['compiles']}"
        elif c["traces"] > 1:
            words += f" ×{c['traces']}"
        why = "".join(f'<span class="jj-why">{escape(r)}</span>' for r in c["reasons"])
        boxes.append(f'<li class="jj-call jj-c-{state}" data-state="{state}">'
                     f'<span class="jj-n">call {c["call"]}</span>'
                     f'<span class="jj-shapes">{escape(c["label"])}</span>'
                     f'<span class="jj-tag">{escape(words)}</span>{why}</li>')
    caption = (f"{len(calls)} calls: {programs} program{'s' if programs != 1 else ''} compiled, "
               f"{hits} served from the cache")
    return (f'<figure class="jj-retrace"><ol class="jj-calls">{"".join(boxes)}</ol>'
            f'<figcaption>{escape(caption)}</figcaption></figure>')


def _output(output: dict) -> str:
    parts = []
    for name in ("stdout", "stderr"):
        text = str(output.get(name) or "")
        if text:
            lines = text.rstrip("\n").splitlines()
            more = len(lines) - SHOWN_OUTPUT_LINES
            shown = "\n".join(lines[:SHOWN_OUTPUT_LINES]) + (f"\n... {more} more lines" if more > 0 else "")
            cut = " (truncated)" if output.get("truncated") else ""
            parts.append(f'<details class="jj-output" open><summary>your {name}{cut}</summary>'
                         f"<pre>{escape(shown)}</pre></details>")
    return "\n".join(parts)
