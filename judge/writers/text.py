"""For a person at a terminal: the verdict first, then what to do about it."""

from __future__ import annotations

from ..report import decide
from ..values import render_shown
from ..verdicts import Verdict

COLORS = {Verdict.ACCEPTED: "32", Verdict.INEFFICIENT: "33", Verdict.JUDGE_ERROR: "35"}
MARKS = {"passed": "ok  ", "failed": "FAIL", "error": "ERR ", "skipped": "skip"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\033[{code}m{text}\033[0m" if color else text


def text(report) -> str:
    """The text report as one string (what `judge run` prints)."""
    import io

    buf = io.StringIO()
    write(report, buf)
    return buf.getvalue()


def shout(verdict: Verdict) -> str:
    return verdict.upper().replace("_", " ")


def strict_note(report) -> str:
    """ " (would be INEFFICIENT with --strict)" when advisory failures are all that
    stand between this verdict and a worse one."""
    if report.strict:
        return ""
    strict = decide(report.checks, True)
    return f"would be {shout(strict)} with --strict" if strict != report.verdict else ""


NAME = "text"


def write(report, stream, *, color: bool = False) -> None:
    from ..scoring import number, score

    head = _paint(shout(report.verdict), COLORS.get(report.verdict, "31"), color)
    note = strict_note(report)
    stream.write(
        f"{head}  {report.task}  {report.submission}" + (f"  ({note})" if note else "") + "\n"
    )
    for line in report.notes:
        stream.write(f"  note: {line}\n")
    write_checks(report, stream, color=color)
    write_output(report, stream)
    points = score(report)
    devices = (
        f", {report.devices['count']} {report.devices['platform']} devices"
        if report.devices and report.devices.get("count", 1) > 1
        else ""
    )
    stream.write(
        f"  seed {report.seed}, {report.elapsed_s:.2f} s, isolation: {report.isolation}, "
        f"points: {number(points.earned)} of {number(points.maximum)}{devices}\n"
    )


def write_checks(report, stream, *, color: bool = False, only_failed: bool = False) -> None:
    for c in report.checks:
        if only_failed and c.status == "passed":
            continue
        tag = (
            ""
            if c.required
            else " (advisory" + (", counted: --strict" if report.strict else "") + ")"
        )
        mark = MARKS[c.status]
        if c.status in ("failed", "error"):
            mark = _paint(mark, "31" if c.required or report.strict else "33", color)
        first, *rest = c.message.splitlines() or [""]
        stream.write(f"  {mark} {c.id}{tag}: {first}\n")
        for line in rest:
            stream.write(f"       {line}\n")
        if c.counterexample and c.status in ("failed", "error"):
            ce = c.counterexample
            for name, v in ce.get("args", {}).items():
                stream.write(f"       {name} = {render_shown(v)}\n")
            if "expected" in ce:
                stream.write(f"       expected: {render_shown(ce['expected'])}\n")
            if "actual" in ce:
                stream.write(f"       got:      {render_shown(ce['actual'])}\n")
        tb = c.details.get("traceback")
        if tb and c.status == "error":
            for line in str(tb).rstrip().splitlines()[-6:]:
                stream.write(f"       | {line}\n")
        if c.details.get("replay") and c.status in ("failed", "error"):
            stream.write("       to call your function on exactly this input, paste into a cell:\n")
            for line in str(c.details["replay"]).splitlines():
                stream.write(f"         {line}\n")


def write_output(report, stream) -> None:
    out = report.output
    for name in ("stdout", "stderr"):
        text = out.get(name, "")
        if text:
            lines = text.rstrip("\n").splitlines()
            shown = lines[:20]
            stream.write(f"  your {name}{' (truncated)' if out.get('truncated') else ''}:\n")
            for line in shown:
                stream.write(f"    {line[:200]}\n")
            if len(lines) > len(shown):
                stream.write(f"    ... {len(lines) - len(shown)} more lines\n")
