"""What a batch shows while it runs, on stderr (stdout stays free for pipes).

On a terminal one status line redraws in place: done/total, rate, verdict counts, ETA
(otter-grader#827).  Elsewhere (CI logs, ``2> log``) a plain line per finished grading,
since carriage returns make a log unreadable.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO

from ..verdicts import Verdict

REDRAW_S = 0.2


class Progress:
    def __init__(
        self, total: int, already: int, stream: TextIO | None = None, tty: bool | None = None
    ):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.total, self.already = total, already  # already: graded by an earlier run
        self.done = 0
        self.verdicts: Counter[str] = Counter()
        self.started = time.monotonic()
        self._drawn = 0.0

    def add(self, learner: str, task_id: str, verdict: str, elapsed_s: float) -> None:
        self.done += 1
        self.verdicts[verdict] += 1
        if self.tty:
            now = time.monotonic()
            if now - self._drawn >= REDRAW_S or self.done == self.total:
                self._drawn = now
                self.stream.write("\r\033[K" + self.status())
        else:
            self.stream.write(
                f"[{self.already + self.done}/{self.already + self.total}] "
                f"{learner}/{task_id}: {verdict} ({elapsed_s:.1f} s)\n"
            )
        self.stream.flush()

    def status(self) -> str:
        spent = time.monotonic() - self.started
        rate = self.done / spent if spent > 0 else 0.0
        left = self.total - self.done
        eta = _clock(left / rate) if rate > 0 else "?"
        counts = " ".join(f"{Verdict.parse(v).short} {n}" for v, n in sorted(self.verdicts.items()))
        return (
            f"{self.already + self.done}/{self.already + self.total} graded  "
            f"{rate * 60:.1f}/min  {counts}  ETA {eta}"
        )

    def finish(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
