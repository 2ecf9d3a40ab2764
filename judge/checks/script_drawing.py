"""The retrace kind's picture of its scripted calls, as the course draws it: one box per
scripted call with its shapes, marked traced, compiled or served from the cache, each
compile numbered by the program it made, so lengths 8, 16, 32, 8 show three programs
and a cache hit.  Self-contained SVG (no script, nothing fetched), every string from a
submission escaped; a grading's HTML page and the class report show it through the
kind's ``html`` and ``class_key`` (scripted.py)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any


@dataclass(frozen=True)
class CallMark:
    number: int
    label: str  # the call's shapes: "x_a float32[8], x_b float32[8]"
    state: str  # traced | compiled | cached
    programs: tuple[
        tuple[int, bool], ...
    ]  # (program number, compiled before?) per compile in this call
    same_as: int | None  # a cached call: the earlier call with the same shapes
    why: str  # the first trace's reason


# a new program is what a new shape costs; the same program made again is the waste
FILL = {"new": "#e3f2fd", "again": "#fde0dc", "cached": "#dcedc8"}
STROKE = {"new": "#1565c0", "again": "#c62828", "cached": "#2e7d32"}


def script_marks(details: dict[str, Any]) -> list[CallMark]:
    """What each scripted call cost: traced (Python ran again), compiled only, or served
    from the cache; compiles numbered by the distinct program (function and signature)."""
    programs: dict[tuple[Any, Any], int] = {}
    marks: list[CallMark] = []
    for number_, (label, events) in enumerate(
        zip(details.get("calls") or [], details.get("per_call") or []), 1
    ):
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
        same = (
            next((m.number for m in marks if m.label == label), None) if state == "cached" else None
        )
        why = str(traces[0].get("reason") or "") if traces else ""
        marks.append(CallMark(number_, str(label), state, tuple(made), same, why))
    return marks


def drawing_key(details: dict[str, Any]) -> tuple[Any, ...]:
    """Two drawings with the same key look the same (the class report draws it once)."""
    return tuple((m.label, m.state, m.programs) for m in script_marks(details))


def script_drawing(details: dict[str, Any], per_row: int = 6) -> str:
    marks = script_marks(details)
    if not marks:
        return ""
    width, height, gap = 168, 96, 12
    cols = min(per_row, len(marks))
    rows = -(-len(marks) // cols)
    svg_w, svg_h = cols * (width + gap), rows * (height + gap)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="script" width="{svg_w}" '
        f'height="{svg_h}" viewBox="0 0 {svg_w} {svg_h}" role="img" '
        f'aria-label="scripted calls">'
    ]
    for i, m in enumerate(marks):
        x, y = (i % cols) * (width + gap), (i // cols) * (height + gap)
        what, which = _state_lines(m)
        lines = [f"call {m.number}"] + m.label.split(", ")[:2] + [what, which]
        tip = f"call {m.number}: {m.label}: {what} {which}" + (f" ({m.why})" if m.why else "")
        look = _look(m)
        parts.append(
            f'<g class="call {m.state}" data-call="{m.number}" data-state="{m.state}">'
            f"<title>{escape(tip)}</title>"
            f'<rect x="{x + 1}" y="{y + 1}" width="{width - 2}" height="{height - 2}" '
            f'rx="6" fill="{FILL[look]}" stroke="{STROKE[look]}"/>'
        )
        for j, line in enumerate(lines):
            weight = ' font-weight="600"' if j in (0, len(lines) - 2) else ""
            parts.append(
                f'<text x="{x + 8}" y="{y + 18 + j * 17}" font-size="12" '
                f'font-family="ui-monospace, monospace"{weight}>'
                f"{escape(_fit(line, 22))}</text>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return (
        f'<figure class="script">{"".join(parts)}<figcaption>{escape(script_caption(marks))}'
        f"</figcaption></figure>"
    )


def script_caption(marks: list[CallMark]) -> str:
    compiles = sum(len(m.programs) for m in marks)
    distinct = len({p for m in marks for p, _ in m.programs})
    cached = sum(m.state == "cached" for m in marks)
    traced = sum(m.state == "traced" for m in marks)
    calls = f"{len(marks)} scripted call{'s' if len(marks) != 1 else ''}"
    made = f"{distinct} program{'s' if distinct != 1 else ''}"
    if compiles > distinct:
        made += f", compiled {compiles} times"
    return (
        f"{calls}: {made}; {traced} traced, {cached} served from the cache "
        "(blue: a new program, red: one made before made again, green: reused)"
    )


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
