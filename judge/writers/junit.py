"""JUnit XML, what CI systems read: a ``testsuite`` per report, a ``testcase`` per check.

A check that counts against the verdict becomes ``failure`` (wrong values, too many
traces) or ``error`` (raised, crashed, timed out); a skipped check becomes ``skipped``;
an advisory failure without ``--strict`` passes with the advice in ``system-out``.  The
learner's own output goes to the suite's ``system-out``/``system-err``, stripped of the
characters XML 1.0 cannot hold (a submission can print anything).

A submission handed in late (``judge batch --deadline``) has it in the suite's
``properties`` (``late_by_s``, ``late_penalty``, ``late_policy``, and the points before and
after), and its ``system-out`` begins with the note saying so.  Several tasks' reports
(``judge run --tasks``) make one document: a ``testsuite`` per task.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from ..scoring import number, outcome, score
from . import late_note

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text) -> str:
    return _NOT_XML.sub("\ufffd", str(text))


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs) -> ET.Element:
    el = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})
    if text:
        el.text = _clean(text)
    return el


def testsuite(report) -> ET.Element:
    states = [outcome(c, report.strict) for c in report.checks]
    count = lambda s: str(sum(state == s for state, _ in states))
    suite = ET.Element(
        "testsuite",
        {
            "name": _clean(f"{report.task}: {report.submission}"),
            "tests": str(len(states)),
            "failures": count("failed"),
            "errors": count("error"),
            "skipped": count("skipped"),
            "time": f"{report.elapsed_s:.3f}",
        },
    )
    props = _sub(suite, "properties")
    for name, value in (
        ("task", report.task),
        ("submission", report.submission),
        ("verdict", report.verdict),
        ("seed", report.seed),
        ("strict", str(report.strict).lower()),
        ("judge_version", report.judge_version),
    ):
        _sub(props, "property", name=name, value=value)
    late = late_note(report)
    if late is not None:
        points = score(report)
        charge = report.late.to_dict()
        for name, value in (
            ("late_by_s", charge["late_by_s"]),
            ("late_penalty", charge["penalty"]),
            ("late_policy", charge["policy"]),
            (
                "points_before_late",
                number(points.earned if points.before_late is None else points.before_late),
            ),
            ("points", number(points.earned)),
            ("max_points", number(points.maximum)),
        ):
            _sub(props, "property", name=name, value=value)
    for c, (state, note) in zip(report.checks, states):
        case = _sub(suite, "testcase", name=c.id, classname=f"{report.task}.{c.kind}")
        if state in ("failed", "error"):
            body = [c.message]
            if c.counterexample is not None:
                body.append("counterexample: " + json.dumps(c.counterexample, ensure_ascii=False))
            if c.details.get("traceback"):
                body.append(str(c.details["traceback"]).rstrip())
            _sub(
                case,
                "failure" if state == "failed" else "error",
                "\n".join(body),
                message=c.message.splitlines()[0] if c.message else state,
                type=c.verdict or state,
            )
        elif state == "skipped":
            _sub(case, "skipped", message=c.message)
        if note and state != "skipped":
            _sub(case, "system-out", note)
    out = report.output or {}
    if out.get("stdout") or out.get("truncated") or late:
        _sub(
            suite,
            "system-out",
            (f"note: {late}\n" if late else "")
            + (out.get("stdout") or "")
            + ("\n[the judge cut the output here]" if out.get("truncated") else ""),
        )
    if out.get("stderr"):
        _sub(suite, "system-err", out["stderr"])
    return suite


NAME = "junit"


def emit_path(learner: str, task_id: str) -> str:
    return f"{learner}/{task_id}.xml"


def write(report, stream, *, color: bool = False) -> None:
    write_many([report], stream)


def write_many(reports, stream, *, color: bool = False) -> None:
    """One ``testsuites`` document, a ``testsuite`` per report, its counts their sums."""
    suites = [testsuite(r) for r in reports]
    counts = {
        key: str(sum(int(s.get(key, "0")) for s in suites))
        for key in ("tests", "failures", "errors", "skipped")
    }
    time = f"{sum(float(s.get('time', '0')) for s in suites):.3f}"
    root = ET.Element("testsuites", {"name": "jax-judge", **counts, "time": time})
    root.extend(suites)
    ET.indent(root)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode") + "\n")
