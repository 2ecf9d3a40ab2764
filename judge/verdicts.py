"""The verdict of a grading and the status of one check: one type each.

Both are ``StrEnum``s, so the report's JSON (the contract in docs/contract.md) carries
the same words as before, and a verdict compares equal to its word when it is read back
from a file.  Everything a verdict means lives here: its order of precedence, its exit
code, its short code.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
    INVALID_SUBMISSION = "invalid_submission"
    INEFFICIENT = "inefficient"
    JUDGE_ERROR = "judge_error"

    @property
    def exit_code(self) -> int:
        """`judge run`'s exit status: 0 accepted, 3 the judge's fault, 1 the learner's."""
        return {Verdict.ACCEPTED: 0, Verdict.JUDGE_ERROR: 3}.get(self, 1)

    @property
    def short(self) -> str:
        return _SHORT[self]

    @classmethod
    def parse(cls, word: Any) -> "Verdict":
        """A verdict read back from a file or a label; ValueError names the known ones."""
        try:
            return cls(word)
        except ValueError:
            raise ValueError(f"unknown verdict '{word}' (one of {', '.join(cls)})") from None


# When several apply, the first wins (accepted is what is left when none applies).
PRECEDENCE = (
    Verdict.JUDGE_ERROR,
    Verdict.INVALID_SUBMISSION,
    Verdict.TIME_LIMIT_EXCEEDED,
    Verdict.MEMORY_LIMIT_EXCEEDED,
    Verdict.RUNTIME_ERROR,
    Verdict.WRONG_ANSWER,
    Verdict.INEFFICIENT,
)

_SHORT = {
    Verdict.ACCEPTED: "AC",
    Verdict.WRONG_ANSWER: "WA",
    Verdict.RUNTIME_ERROR: "RTE",
    Verdict.TIME_LIMIT_EXCEEDED: "TLE",
    Verdict.MEMORY_LIMIT_EXCEEDED: "MLE",
    Verdict.INVALID_SUBMISSION: "IS",
    Verdict.INEFFICIENT: "INEF",
    Verdict.JUDGE_ERROR: "JE",
}


def first_of(found: Iterable[Verdict | None]) -> Verdict:
    """The verdict that wins among ``found``; accepted when it is empty."""
    present = set(found)
    return next((v for v in PRECEDENCE if v in present), Verdict.ACCEPTED)


class Status(StrEnum):
    """What happened to one check."""

    PASSED = "passed"
    FAILED = "failed"  # it ran and found the submission wanting
    ERROR = "error"  # it could not finish: the call raised, timed out, crashed
    SKIPPED = "skipped"  # not run (the submission did not load, nothing to check)

    @property
    def bad(self) -> bool:
        return self in (Status.FAILED, Status.ERROR)
