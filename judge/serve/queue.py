"""The bounded queue of submissions and the grading threads that drain it.

The queue holds ids only (the submissions themselves are in the store), in the order
they came; ``workers`` threads take one each and grade it on the backend.  A place is
reserved before a submission is stored and given back if it turns out to be one already
stored (a double click), so the bound holds under concurrent requests.

A grading that ends in ``judge_error`` is graded once more with nothing warm before its
report is recorded: a warm worker that died while it waited, or a reference worker at the
end of its life, is the service's fault, and a learner should not see it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from typing import Callable

from ..verdicts import Verdict
from .store import Store

log = logging.getLogger("judge.serve")


class GradingQueue:
    def __init__(self, store: Store, backend, *, workers: int, limit: int,
                 on_change: Callable[[str, str, dict | None], None]):
        self.store, self.backend = store, backend
        self.workers, self.limit = workers, limit
        self.on_change = on_change          # (id, new state, report when done)
        self._ids: deque[str] = deque()
        self._reserved = 0
        self._cond = threading.Condition()
        self._closed = False
        self.running = 0
        self._mean_s = 2.0                  # a grading's duration, smoothed
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        with self._cond:
            self._ids.extend(self.store.queued_ids())
        for i in range(self.workers):
            t = threading.Thread(target=self._loop, name=f"serve-grading-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    # ------------------------------------------------------------ the app's side
    def reserve(self) -> bool:
        """A place for one more submission, or False when the queue is full."""
        with self._cond:
            if len(self._ids) + self._reserved >= self.limit:
                return False
            self._reserved += 1
            return True

    def put(self, sub_id: str | None) -> None:
        """Fill a reserved place (None: give it back)."""
        with self._cond:
            self._reserved -= 1
            if sub_id is not None:
                self._ids.append(sub_id)
                self._cond.notify()

    @property
    def depth(self) -> int:
        with self._cond:
            return len(self._ids)

    def position(self, sub_id: str) -> int | None:
        """How many submissions are ahead of this one, or None if it is not waiting."""
        with self._cond:
            try:
                return self._ids.index(sub_id)
            except ValueError:
                return None

    def retry_after_s(self) -> int:
        """When a place is likely to be free: the queue's wait, roughly."""
        with self._cond:
            ahead = len(self._ids) - self.limit + 1
        return max(1, min(300, math.ceil(max(ahead, 1) * self._mean_s / self.workers)))

    # ------------------------------------------------------------ the graders
    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._ids and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                sub_id = self._ids.popleft()
                self.running += 1
            try:
                self._grade(sub_id)
            except Exception:        # the store went away under a shutdown, ...
                if not self._closed:
                    log.exception("grading %s failed", sub_id)
            finally:
                with self._cond:
                    self.running -= 1

    def _grade(self, sub_id: str) -> None:
        job = self.store.start(sub_id)
        if job is None:
            return
        self.on_change(sub_id, "running", None)
        started = time.monotonic()
        report = self.backend.grade(job)
        if report["verdict"] == Verdict.JUDGE_ERROR and not self._closed:
            log.warning("submission %s: judge error, graded again with nothing warm", sub_id)
            report = self.backend.grade(job, fresh=True)
        if report["verdict"] == Verdict.JUDGE_ERROR and self._closed:
            return     # cut off by the service stopping: still 'running', graded at the next start
        self._mean_s = 0.8 * self._mean_s + 0.2 * (time.monotonic() - started)
        self.store.finish(sub_id, report)
        self.on_change(sub_id, "done", report)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
