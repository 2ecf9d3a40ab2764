"""The cross-check of the judge's instruments in a learner's worker.

The worker reports what it found changed of its instruments (the probe, jax's
monitoring listeners, the patched functions); the judge also counts XLA's compiles from
outside the worker (its compile log, judge/compile_log.py) and matches them against what
the probe saw and what its records show.  A mismatch is tampering: the performance
checks cannot trust what they measured, and the grading reports an ``instruments`` check
(a runtime error, worth nothing; judge/scoring.py).
"""

from __future__ import annotations

from .checks.outcome import plural
from .report import CheckResult
from .session import CallOutcome
from .verdicts import Status, Verdict


class InstrumentsWatch:
    """One grading's watch on the instruments, across restarts of the learner's worker."""

    def __init__(self) -> None:
        self.found: list[str] = []  # what the learner's code did to the instruments
        self.log = None  # the worker's CompileLog (compile_log.py), or None
        self.reported = 0  # compile events in the worker's replies so far

    def watch(self, worker, loaded: CallOutcome) -> None:
        """A (fresh) worker's file was loaded: its own compile log, watched since before
        the learner's file was sent; what XLA compiled until the load's reply is the
        baseline."""
        self.log = log = worker.compile_log if worker is not None else None
        if log is not None:
            log.at_start = log.count()
        self.reported = 0  # a fresh worker: its own log, its own records
        self.check(loaded)

    def check(self, out: CallOutcome) -> None:
        """What the worker found changed of its instruments, and XLA's count of compiles
        against the probe's: more compiles than the probe saw means it was blinded."""
        found = list(out.tampered)
        log = self.log
        self.reported += out.compiles_reported
        if log is not None:
            # whatever the worker's reply says or leaves out: a log the learner moved,
            # removed or flooded is tampering, never a cross-check quietly skipped
            compiled = log.count()
            log.prune()
            if log.problem:
                found.append(log.problem)
            elif not any(t.startswith("XLA compiled") for t in self.found):
                during = compiled - log.at_start
                # a reply without the probe's total (its reader replaced) is matched by
                # its records alone
                if out.compiles_seen is not None and compiled > out.compiles_seen:
                    found.append(
                        f"XLA compiled {plural(compiled, 'program')} in your worker "
                        f"where the judge's probe saw {out.compiles_seen} (the probe "
                        f"was blinded)"
                    )
                elif during > self.reported:
                    # the probe's own total can be rewritten as easily as its records: the
                    # records the checks read are what XLA's count must match
                    found.append(
                        f"XLA compiled {plural(during, 'program')} in your worker "
                        f"during its calls, where the probe's records of them show "
                        f"{self.reported} (the records were rewritten)"
                    )
        self.found += [t for t in found if t not in self.found]

    def results(self) -> list[CheckResult]:
        """The ``instruments`` check, where anything was found; else nothing."""
        if not self.found:
            return []
        return [
            CheckResult(
                id="instruments",
                kind="instruments",
                required=True,
                status=Status.ERROR,
                message="your code tampered with the judge's instruments: "
                + "; ".join(self.found[:4])
                + ". The performance checks cannot trust what they measured, so the "
                "submission is graded as a runtime error; remove the code that touches "
                "the judge's probe, jax's monitoring listeners or the patched functions",
                details={"changes": self.found},
                verdict=Verdict.RUNTIME_ERROR,
            )
        ]
