"""The report: one model; every output format is a view of it (see judge/writers/)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .scoring import score
from .verdicts import Status, Verdict, first_of


@dataclass
class CheckResult:
    id: str
    kind: str
    required: bool
    status: Status
    message: str
    counterexample: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    verdict: Verdict | None = None  # the verdict this check's failure stands for

    def __post_init__(self) -> None:
        self.status = Status(self.status)
        if self.verdict is not None:
            self.verdict = Verdict(self.verdict)
        elif self.status.bad:
            self.verdict = Verdict.WRONG_ANSWER

    def counts(self, strict: bool) -> bool:
        return self.status.bad and (self.required or strict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "required": self.required,
            "status": self.status.value,
            "message": self.message,
        }
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample
        details = dict(self.details)
        if self.verdict and self.status.bad:
            details["verdict"] = self.verdict.value
        out["details"] = details
        return out


# C0 and C1 controls but newline and tab (ESC starts a colour, CR overwrites a line),
# DEL, and the bidirectional overrides that reorder what a terminal shows
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_char(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_controls(value: Any) -> Any:
    """Text the learner wrote (prints, exception messages, reprs, file names) made
    harmless for a terminal: control characters become visible escapes like \\x1b, so
    no writer can be made to paint a fake green ACCEPTED.  Walks dicts and lists."""
    if isinstance(value, str):
        return _CONTROLS.sub(_escape_char, value)
    if isinstance(value, dict):
        return {escape_controls(k): escape_controls(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(escape_controls(v) for v in value)
    return value


def decide(checks: list[CheckResult], strict: bool) -> Verdict:
    return first_of(c.verdict for c in checks if c.counts(strict))


@dataclass
class Report:
    task: str
    submission: str
    seed: int
    judge_version: str
    checks: list[CheckResult] = field(default_factory=list)
    output: dict[str, Any] = field(
        default_factory=lambda: {"stdout": "", "stderr": "", "truncated": False}
    )
    elapsed_s: float = 0.0
    strict: bool = False
    isolation: str = "process"
    isolation_layers: list[str] = field(default_factory=list)  # what held, in a few words each
    devices: dict[str, Any] | None = None  # {"count": n, "platform": name}: what the grading ran on
    title: str = ""
    verdict: Verdict = Verdict.JUDGE_ERROR
    notes: list[str] = field(default_factory=list)  # said once, above the checks

    def finish(self) -> "Report":
        """Decide the verdict, and escape control characters everywhere, once: every
        writer reads the report after this."""
        self.verdict = decide(self.checks, self.strict)
        self.submission = escape_controls(self.submission)
        self.output = escape_controls(self.output)
        self.notes = escape_controls(self.notes)
        for c in self.checks:
            c.message = escape_controls(c.message)
            c.counterexample = escape_controls(c.counterexample)
            c.details = escape_controls(c.details)
        return self

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "task": self.task,
            "submission": self.submission,
            "verdict": self.verdict.value,
            "seed": self.seed,
            "elapsed_s": round(self.elapsed_s, 3),
            "judge_version": self.judge_version,
            "checks": [c.to_dict() for c in self.checks],
            "output": self.output,
            "strict": self.strict,
            "isolation": self.isolation,
            "isolation_layers": list(self.isolation_layers),
            "score": score(self).to_dict(),
        }
        if self.devices:
            out["devices"] = dict(self.devices)
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Report":
        checks = []
        for c in data.get("checks", []):
            details = dict(c.get("details", {}))
            checks.append(
                CheckResult(
                    id=c["id"],
                    kind=c["kind"],
                    required=c["required"],
                    status=c["status"],
                    message=c["message"],
                    counterexample=c.get("counterexample"),
                    details=details,
                    verdict=details.get("verdict"),
                )
            )
        return cls(
            task=data["task"],
            submission=data["submission"],
            seed=data["seed"],
            judge_version=data["judge_version"],
            checks=checks,
            output=data.get("output", {}),
            elapsed_s=data.get("elapsed_s", 0.0),
            strict=data.get("strict", False),
            isolation=data.get("isolation", "process"),
            isolation_layers=list(data.get("isolation_layers", [])),
            devices=data.get("devices") if isinstance(data.get("devices"), dict) else None,
            verdict=Verdict.parse(data["verdict"]),
            notes=list(data.get("notes", [])),
        )
