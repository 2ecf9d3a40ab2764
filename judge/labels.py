"""Labels on known submissions: the verdict each must get, and optionally which checks
must fail or pass.  In the file's first comment lines:

    # expect: wrong_answer via property
    # expect: accepted; retrace failed
    # expect --strict: inefficient via retrace

``via A, B`` means those checks failed (or errored); ``; CHECK STATUS, ...`` names
statuses outright.  A line without ``--strict`` is for a plain run.

A known submission that reads well on a measurement by a route around it (issue 20)
says which class of dodge it is, in the same comment block:

    # dodge: loop_flops

(several, comma-separated).  ``judge validate`` requires, bank-wide, that each kind of
measuring check be caught rejecting a known submission of every class its module
declares (``CheckSpec.DODGES``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .verdicts import Status, Verdict

LINE = re.compile(r"^\s*#\s*expect(\s+--strict)?\s*:\s*(.+?)\s*$")
DODGE_LINE = re.compile(r"^\s*#\s*dodge\s*:\s*(.*?)\s*$")

# the ways around a measurement, one per class of issue 20
DODGE_CLASSES = {
    "thread_sync": "a host sync made from another thread than the learner's own",
    "loop_flops": "work inside a loop that a cost analysis counts once",
    "host_callback": "work handed to Python on the host by a callback from the program",
    "ahead_of_time": "programs traced or compiled before the measured calls",
    "host_compute": "the result computed on the host from the device's inputs",
    "trace_switch": "other work when called than when traced (isinstance(x, Tracer))",
}


class LabelError(ValueError):
    pass


@dataclass
class Expectation:
    strict: bool
    verdict: Verdict
    statuses: dict[str, tuple[Status, ...]] = field(default_factory=dict)

    def problems(self, report) -> list[str]:
        """What in ``report`` disagrees with this expectation (empty when all agrees)."""
        out = []
        if report.verdict != self.verdict:
            out.append(f"verdict {report.verdict}, expected {self.verdict}")
        by_id = {c.id: c for c in report.checks}
        for check_id, allowed in self.statuses.items():
            c = by_id.get(check_id)
            if c is None:
                out.append(f"no check '{check_id}' in the report")
            elif c.status not in allowed:
                out.append(f"check '{check_id}' {c.status}, expected {' or '.join(allowed)}")
        return out

    def describe(self) -> str:
        parts = [self.verdict] + [f"{k} {'/'.join(v)}" for k, v in self.statuses.items()]
        return ("--strict: " if self.strict else "") + "; ".join(parts)


def parse_label(text: str, strict: bool) -> Expectation:
    head, _, rest = text.partition(";")
    verdict, _, via = head.strip().partition(" via ")
    try:
        verdict = Verdict.parse(verdict.strip())
    except ValueError as exc:
        raise LabelError(str(exc)) from None
    statuses: dict[str, tuple[Status, ...]] = {}
    for name in filter(None, (v.strip() for v in via.split(","))):
        statuses[name] = (Status.FAILED, Status.ERROR)
    for item in filter(None, (v.strip() for v in rest.split(","))):
        parts = item.split()
        if len(parts) != 2 or parts[1] not in tuple(Status):
            raise LabelError(f"'{item}' should be a check id and a status ({', '.join(Status)})")
        statuses[parts[0]] = (Status(parts[1]),)
    return Expectation(strict=strict, verdict=verdict, statuses=statuses)


def parse_dodges(text: str) -> tuple[str, ...]:
    """The classes of a ``# dodge:`` line's text (comma-separated), each a known one."""
    import difflib

    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise LabelError(f"'# dodge:' names no class (classes: {', '.join(DODGE_CLASSES)})")
    for name in names:
        if name not in DODGE_CLASSES:
            close = difflib.get_close_matches(name, list(DODGE_CLASSES), n=1)
            raise LabelError(
                f"unknown dodge class '{name}'"
                + (
                    f" (did you mean '{close[0]}'?)"
                    if close
                    else f" (classes: {', '.join(DODGE_CLASSES)})"
                )
            )
    return tuple(dict.fromkeys(names))


def read_dodges(path: Path) -> tuple[str, ...]:
    """The dodge classes a known submission declares in its leading comment block
    (empty when it declares none)."""
    from .notebooks import submission_source

    found: list[str] = []
    for line in submission_source(path).splitlines()[:30]:
        m = DODGE_LINE.match(line)
        if m:
            found += parse_dodges(m.group(1))
    return tuple(dict.fromkeys(found))


def read_labels(path: Path) -> list[Expectation]:
    """Every expectation in the file's leading comment block (a notebook's first cells)."""
    from .notebooks import submission_source

    out = []
    for line in submission_source(path).splitlines()[:30]:
        m = LINE.match(line)
        if m:
            out.append(parse_label(m.group(2), strict=bool(m.group(1))))
    if not out:
        raise LabelError(f"{path.name} has no '# expect: VERDICT' line")
    return out
