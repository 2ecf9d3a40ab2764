"""Time that belongs to the learner's code, measured so that machine load does not count.

A call's *charged* time is its wall time less the time its threads waited for a CPU
that other processes held.  Each look at the worker (every 50 ms) reads every thread's
CPU time and run-queue wait (/proc/<pid>/task/<tid>/schedstat); over that interval

    wanting = (cpu + wait) / dt         threads that wanted a CPU, on average
    share   = (cpu / dt) / min(wanting, cores)   of the CPU it wanted, what it got

and the interval is charged ``dt * share`` (all of ``dt`` when the code was not
computing: sleeping, blocked, waiting on a lock).  On a quiet machine that is the
wall time; at a load of 20 on 2 cores a computing call is charged about a tenth of
the clock.  Waiting on its own threads (more of them than cores, or than the CPUs the
code pinned itself to) is charged: the code asked for it.

Two bounds keep that honest: the CPU time itself (all threads) may not pass
``cores x limit``, so many spinning threads cannot slow the clock for free; and an
absolute wall time of ``WALL_FACTOR x limit`` ends a call on a machine too busy to
judge it, as the judge's failure, never the learner's.
"""

from __future__ import annotations

import os
import threading
import time

from .procs import Sample

WALL_FACTOR = 10.0  # the wall-clock backstop, times the limit
IDLE = 0.05  # below this many threads wanting a CPU, the code was waiting


def cores() -> int:
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )


class Meter:
    """The time of one request, from successive samples of the worker's threads."""

    def __init__(self, first: Sample, now: float | None = None, n_cores: int | None = None):
        self.cores = n_cores or cores()
        self.started = self._t = time.monotonic() if now is None else now
        # CPU from the first sample that read it (a request's own start reads none)
        self.cpu0 = self._cpu = first.cpu_s if first.cpu_known else None
        self._threads = dict(first.threads)
        self.charged_s = 0.0
        self._lock = threading.Lock()  # the watch and the request's own end both update

    @property
    def cpu_s(self) -> float:
        return 0.0 if self.cpu0 is None else self._cpu - self.cpu0  # type: ignore[operator]  # set with cpu0

    def wall_s(self, now: float | None = None) -> float:
        return (time.monotonic() if now is None else now) - self.started

    def update(self, s: Sample, now: float | None = None) -> None:
        with self._lock:
            self._update(s, time.monotonic() if now is None else now)

    def _update(self, s: Sample, now: float) -> None:
        dt = now - self._t
        if dt <= 0:
            return
        run = wait = 0
        usable: set[int] | int = set()  # the CPUs the threads that wanted one let themselves use
        for key, (r, w) in s.threads.items():
            r0, w0 = self._threads.get(key, (0, 0))  # a new thread: all of it is new
            run += max(0, r - r0)
            wait += max(0, w - w0)
            if r > r0 or w > w0:
                usable |= s.cpus.get(key, set(range(self.cores)))
        run_s, wait_s = run / 1e9, wait / 1e9
        wanting = (run_s + wait_s) / dt
        # pinned to one CPU, the code's threads queue for it behind each other, not others
        usable = min(self.cores, len(usable)) if usable else self.cores  # type: ignore[arg-type]  # the set yet
        share = 1.0 if wanting < IDLE else min(1.0, (run_s / dt) / min(wanting, usable))
        self.charged_s += dt * share
        self._t, self._threads = now, dict(s.threads)
        if s.cpu_known:
            if self.cpu0 is None:
                self.cpu0 = self._cpu = s.cpu_s
            self._cpu = max(self._cpu, s.cpu_s)  # type: ignore[type-var]  # cpu0, so _cpu, is set

    def finish_unseen(self, now: float | None = None) -> None:
        """The request ended where nothing could be sampled (the worker died): the
        time since the last look counts in full."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if now > self._t:
                self.charged_s += now - self._t
                self._t = now


class RunClock:
    """One grading's time, across every worker the learner's code ran in (a crash
    restarts the worker, not the clock).  Thread-safe; nothing runs until a request
    is charged to it."""

    def __init__(self, run_timeout_s: float, n_cores: int | None = None):
        self.limit_s = run_timeout_s
        self.cores = n_cores or cores()
        self.cpu_limit_s = run_timeout_s * self.cores
        self._lock = threading.Lock()
        self.charged_s = 0.0
        self.cpu_s = 0.0
        self.started: float | None = None

    def begin(self) -> float:
        """The absolute wall deadline of the run (set by its first request)."""
        with self._lock:
            if self.started is None:
                self.started = time.monotonic()
            return self.started + WALL_FACTOR * self.limit_s

    def add(self, charged_s: float, cpu_s: float) -> None:
        with self._lock:
            self.charged_s += charged_s
            self.cpu_s += cpu_s

    def spent_s(self) -> float:
        """Charged seconds used so far, as the run's limit weighs them: the charged time,
        or the CPU time spread over the cores where that is more.  A request's cost is
        the difference of two readings: what a check that stretches to the budget (the
        property check) judges the learner's calls by."""
        with self._lock:
            return max(self.charged_s, self.cpu_s / self.cores)

    def left_s(self) -> float:
        """Charged seconds left; also 0 past the wall backstop."""
        with self._lock:
            if (
                self.started is not None
                and time.monotonic() >= self.started + WALL_FACTOR * self.limit_s
            ):
                return 0.0
            return max(
                0.0,
                min(self.limit_s - self.charged_s, (self.cpu_limit_s - self.cpu_s) / self.cores),
            )
