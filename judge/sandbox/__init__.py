"""The judge's side of a worker: where the learner's code runs, and what holds it.

This package never imports jax: the judge forks a worker per submission, and a process
that imported jax should not fork.  Split by job:

    procs     process bookkeeping: spawning, /proc, killing, reaping, escapees, scratch
    policy    isolation: bubblewrap, forked or process (Landlock, uid, capabilities), the view
    zygote    warm sandboxes that fork learner workers (forked isolation)
    clock     time that belongs to the learner's code, load taken out
    deaths    how a worker ended, in the learner's words (a pure function)
    handle    WorkerHandle, the judge's handle on one worker (judge/worker/ running
              in its sandbox): requests, the watch, close
    beneath   the only ways the judge acts in a folder the learner can write: descriptors
              (the worker's compile log, ../compile_log.py, is watched through one)
"""

from ..limits import Limits
from .clock import RunClock
from .deaths import WorkerFailure
from .handle import WorkerHandle
from .policy import IsolationUnavailable, forked_unavailable, is_root
from .policy import requested as requested_isolation
from .policy import resolve as resolve_isolation
from .procs import scratch_root

# the handle's name before 2026-12-02, for code written against it (tests, a course's tools)
Worker = WorkerHandle

__all__ = [
    "Limits",
    "RunClock",
    "WorkerHandle",
    "Worker",
    "WorkerFailure",
    "IsolationUnavailable",
    "forked_unavailable",
    "check_isolation_soon",
    "is_root",
    "requested_isolation",
    "resolve_isolation",
    "scratch_root",
]


def check_isolation_soon() -> None:
    """Probe bubblewrap and compute the worker's view in a thread now (~50 ms), so the
    answer is there when the first worker starts."""
    from .policy import warm_up

    warm_up()
