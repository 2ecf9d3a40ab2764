"""Where gradings run: threads on this machine, or tasks on a Dask cluster.

One interface for both, and for anything else that grades on demand (``judge serve``)::

    grader = open_grader(bank, workers=4)              # or scheduler="tcp://host:8786"
    future = grader.submit(Submission(learner, task_id, name, source), Options(...))
    record = future.result()        # the JSON report + learner, sha256, examples, submitted
    grader.close()                  # stops the reference workers; cancels what is left

``submit`` returns a ``concurrent.futures.Future`` (for Dask too), so a caller waits on
it, polls it, or hands several to ``concurrent.futures.as_completed`` alike.  A grading
that raises is a ``judge_error`` record, never an exception out of the future
(invariant 6); ``Report.from_dict(record)`` gives the report object back.

Threads suffice locally: each grading's learner code runs in its own sandboxed worker
process, and the judge side mostly waits on pipes.  One reference worker (``Oracle``) per
task and seed is shared by all the gradings that need it, so reference outputs are
computed once per task (on Dask: once per task per Dask worker process).
"""

from __future__ import annotations

import sys
import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..bank import Bank, load_bank
from .discovery import Submission


class SchedulerError(Exception):
    """The cluster cannot be used (Dask missing, scheduler unreachable)."""


@dataclass(frozen=True)
class Options:
    seed: int | None = None  # None: each task's own seed
    strict: bool = False
    examples: int | None = None  # None: each check's own number
    isolation: str | None = None  # None: $JUDGE_ISOLATION, else auto

    def seed_for(self, task) -> int:
        return task.seed if self.seed is None else self.seed


class OraclePool:
    """One started Oracle per (task, seed), made on first use; a dead one is replaced,
    so one reference crash does not turn the rest of the batch into judge errors."""

    def __init__(self):
        self._lock = threading.Lock()
        self._slots: dict[tuple[str, int], list] = {}  # key -> [lock, oracle]

    def get(self, task, seed: int):
        from ..runner import Oracle

        with self._lock:
            slot = self._slots.setdefault((task.id, seed), [threading.Lock(), None])
        with slot[0]:  # per task: starting one reference must not hold up the others
            if slot[1] is None or not slot[1].session.alive:
                if slot[1] is not None:
                    slot[1].close()
                oracle = Oracle(task, seed)
                oracle.start()
                slot[1] = oracle
            return slot[1]

    def close(self) -> None:
        with self._lock:
            slots, self._slots = list(self._slots.values()), {}
        for _, oracle in slots:
            if oracle is not None:
                oracle.close()


def grade_one(bank: Bank, sub: Submission, opts: Options, oracles: OraclePool) -> dict:
    """Grade the exact bytes that were hashed (the file may change while the batch runs)."""
    from ..runner import grade, missing_report

    task = bank.get(sub.task_id)
    seed = opts.seed_for(task)
    if sub.refused:  # a FIFO, a device, a link out of the class folder: never read
        return record_of(
            sub, missing_report(task, sub.path, sub.refused, seed, opts.strict).to_dict(), opts
        )
    try:
        # the bytes discovery read and hashed, handed to the grading as they are: no file
        # written here to be read back (the name says only .py or .ipynb, and what the
        # report shows)
        name = Path(sub.path).name
        report = grade(
            task,
            Path(name),
            seed=seed,
            examples=opts.examples,
            strict=opts.strict,
            oracle=oracles.get(task, seed),
            display_name=name,
            isolation=opts.isolation,
            source_bytes=sub.source,
        )
    except Exception as exc:  # the judge's fault, recorded; the batch goes on
        return error_record(bank, sub, opts, exc)
    return record_of(sub, report.to_dict(), opts)


def error_record(bank: Bank, sub: Submission, opts: Options, exc: BaseException) -> dict:
    from ..runner import judge_error_report

    task = bank.get(sub.task_id)
    report = judge_error_report(task, sub.path, opts.seed_for(task), opts.strict, exc)
    return record_of(sub, report.to_dict(), opts)


def record_of(sub: Submission, report: dict, opts: Options) -> dict:
    return {
        "learner": sub.learner,
        **report,
        "submission": sub.path,
        "sha256": sub.sha256,
        "examples": opts.examples,
        "submitted": sub.submitted.isoformat() if sub.submitted else None,
    }


def open_grader(
    bank: Bank, *, workers: int | None = None, scheduler: str | None = None
) -> "LocalGrader | DaskGrader":
    """A grader on this machine's threads (``workers`` at once, default the number of
    cores), or on the Dask cluster at ``scheduler`` (SchedulerError when it cannot be
    used)."""
    if scheduler:
        return DaskGrader(scheduler, bank)
    import os

    return LocalGrader(bank, workers or os.cpu_count() or 1)


class LocalGrader:
    def __init__(self, bank: Bank, workers: int):
        from ..checks import warm_up_for_threads

        warm_up_for_threads()
        self.bank = bank
        self.oracles = OraclePool()
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="judge-batch")

    def submit(self, sub: Submission, opts: Options) -> Future:
        return self.executor.submit(grade_one, self.bank, sub, opts, self.oracles)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.oracles.close()


# ---------------------------------------------------------------- Dask

_REMOTE: dict[str, tuple[Bank, OraclePool]] = {}  # per grader token, in each Dask worker
_REMOTE_LOCK = threading.Lock()


def grade_remote(token: str, bank_root: str, sub: Submission, opts: Options) -> dict:
    """One Dask task.  The bank folder must be readable at the same path on the workers
    (a shared file system, or the bank shipped inside the installed package)."""
    from ..checks import warm_up_for_threads

    with _REMOTE_LOCK:
        if token not in _REMOTE:
            stop_dask_profiler()
            warm_up_for_threads()  # Dask runs tasks in threads too
            _REMOTE[token] = (load_bank(bank_root), OraclePool())
        bank, oracles = _REMOTE[token]
    return grade_one(bank, sub, opts, oracles)


# CPython fixed the deadlock in 3.11.9 (cpython#116969); 3.12 never had it
_PROFILER_DEADLOCKS = (3, 11) <= sys.version_info[:3] < (3, 11, 9)


def stop_dask_profiler() -> None:
    """Stop the statistical profiler of the Dask worker this runs in.  It calls
    sys._current_frames every 10 ms, and on CPython 3.11 before 3.11.9 that deadlocks
    the whole process when the garbage collector runs at that moment (cpython#116969,
    distributed#8616).  A grading's many threads make that likely: a service on Dask
    stalled on its last of 200 submissions.  Gradings have no use for the profile."""
    if not _PROFILER_DEADLOCKS:
        return
    from distributed import get_worker

    try:
        worker = get_worker()
    except ValueError:  # not in a Dask worker (a test calling this directly)
        return
    for name in ("profile", "profile-cycle"):
        callback = worker.periodic_callbacks.get(name)
        if callback is not None:
            worker.loop.add_callback(callback.stop)  # on the worker's own event loop


def close_remote(token: str) -> None:
    with _REMOTE_LOCK:
        entry = _REMOTE.pop(token, None)
    if entry is not None:
        entry[1].close()


class DaskGrader:
    def __init__(self, address: str, bank: Bank):
        try:
            from distributed import Client
        except ImportError:
            raise SchedulerError("--scheduler needs Dask: pip install 'jax-judge[dask]'") from None
        try:
            # how long to try: Dask's own setting (distributed.comm.timeouts.connect,
            # 30 s unless the course sets it, e.g. DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)
            self.client = Client(address)
        except (OSError, TimeoutError) as exc:
            raise SchedulerError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.address, self.bank = address, bank
        self.token = uuid.uuid4().hex
        self._count = 0
        self._remote: list = []

    def submit(self, sub: Submission, opts: Options) -> Future:
        self._count += 1
        remote = self.client.submit(
            grade_remote,
            self.token,
            str(self.bank.root),
            sub,
            opts,
            pure=False,
            key=f"judge-{self.token[:8]}-{self._count}",
        )
        self._remote.append(remote)
        mine: Future = Future()
        mine.set_running_or_notify_cancel()

        def done(remote_future):
            try:
                mine.set_result(remote_future.result())
            except BaseException as exc:  # the Dask worker died, or could not import the judge
                mine.set_result(error_record(self.bank, sub, opts, exc))

        remote.add_done_callback(done)
        return mine

    def close(self) -> None:
        self.client.cancel(self._remote)  # interrupted: nothing left running for us
        try:
            self.client.run(close_remote, self.token)  # stop this grader's reference workers
        except Exception:  # a cluster going away must not hide the results already stored
            pass
        self.client.close()
