"""The bounded queue of submissions and the grading threads that drain it.

The queue holds ids only (the submissions themselves are in the store), one line per
caller (a token's name, or 'loopback') in the order they came; ``workers`` threads take
one each and grade it on the backend.  A place is reserved before a submission is stored
and given back if it turns out to be one already stored (a double click), so the bound
holds under concurrent requests.

No caller can starve the others.  Each of the ``callers`` the service knows (its tokens,
or the one loopback caller) may hold at most its share of the places, ``limit //
callers``, so every caller's share is there for it whatever the others send (a queue
that lent a caller's places to another could not give them back: a stored submission is
never dropped).  A free grading slot takes the next
submission of the caller with the fewest gradings running, the callers taking turns
when they tie: one script's flood waits behind a classmate's single submission, not the
other way round.

A grading that ends in ``judge_error`` is graded once more with nothing warm before its
report is recorded: a warm worker that died while it waited, or a reference worker at the
end of its life, is the service's fault, and a learner should not see it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter, deque
from typing import Callable

from ..verdicts import Verdict
from .store import Store

log = logging.getLogger("judge.serve")


class GradingQueue:
    def __init__(
        self,
        store: Store,
        backend,
        *,
        workers: int,
        limit: int,
        callers: int = 1,
        on_change: Callable[[str, str, dict | None], None],
    ):
        self.store, self.backend = store, backend
        self.workers, self.limit = workers, limit
        self.callers = max(1, callers)
        self.share = max(1, limit // self.callers)  # places each caller may hold
        self.on_change = on_change  # (id, new state, report when done)
        self._lines: dict[str, deque[str]] = {}  # caller -> its ids; dict order: turns
        self._reserved: Counter[str] = Counter()
        self._running: Counter[str] = Counter()
        self._cond = threading.Condition()
        self._closed = False
        self.running = 0
        self._mean_s = 2.0  # a grading's duration, smoothed
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        with self._cond:
            for sub_id, client in self.store.queued():
                self._lines.setdefault(client, deque()).append(sub_id)
        for i in range(self.workers):
            t = threading.Thread(target=self._loop, name=f"serve-grading-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    # ------------------------------------------------------------ the app's side
    def _held(self, client: str) -> int:
        return len(self._lines.get(client, ())) + self._reserved[client]

    def reserve(self, client: str = "loopback") -> bool:
        """A place for one more submission of this caller, or False when the queue, or
        all of it this caller may take, is full."""
        with self._cond:
            held = self.depth_locked() + sum(self._reserved.values())
            if held >= self.limit:
                return False
            if self._held(client) >= self.share:
                return False
            self._reserved[client] += 1
            return True

    def put(self, sub_id: str | None, client: str = "loopback") -> None:
        """Fill a place this caller reserved (None: give it back)."""
        with self._cond:
            self._reserved[client] -= 1
            if self._reserved[client] <= 0:
                del self._reserved[client]
            if sub_id is not None:
                self._lines.setdefault(client, deque()).append(sub_id)
                self._cond.notify()

    def depth_locked(self) -> int:
        return sum(len(line) for line in self._lines.values())

    @property
    def depth(self) -> int:
        with self._cond:
            return self.depth_locked()

    def position(self, sub_id: str) -> int | None:
        """About how many submissions will be graded before this one (the callers taking
        turns), or None if it is not waiting."""
        with self._cond:
            turns = list(self._lines)
            for turn, client in enumerate(turns):
                line = self._lines[client]
                if sub_id in line:
                    i = line.index(sub_id)
                    return i + sum(
                        min(len(self._lines[c]), i + (t < turn))
                        for t, c in enumerate(turns)
                        if c != client
                    )
            return None

    def retry_after_s(self) -> int:
        """When a place is likely to be free: the queue's wait, roughly."""
        with self._cond:
            ahead = self.depth_locked() - self.limit + 1
        return max(1, min(300, math.ceil(max(ahead, 1) * self._mean_s / self.workers)))

    def _take(self) -> tuple[str, str]:
        """The next submission: of the caller with the fewest gradings running, the
        earliest in turn among those that tie; that caller's turn goes to the back."""
        client = min(self._lines, key=lambda c: self._running[c])  # min keeps the first
        line = self._lines.pop(client)
        sub_id = line.popleft()
        if line:
            self._lines[client] = line  # at the back of the turns
        return client, sub_id

    # ------------------------------------------------------------ the graders
    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._lines and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                client, sub_id = self._take()
                self.running += 1
                self._running[client] += 1
            try:
                self._grade(sub_id)
            except Exception:  # the store went away under a shutdown, ...
                if not self._closed:
                    log.exception("grading %s failed", sub_id)
            finally:
                with self._cond:
                    self.running -= 1
                    self._running[client] -= 1

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
            return  # cut off by the service stopping: still 'running', graded at the next start
        self._mean_s = 0.8 * self._mean_s + 0.2 * (time.monotonic() - started)
        self.store.finish(sub_id, report)
        self.on_change(sub_id, "done", report)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
