"""Where and how gradings run: threads on this machine, or tasks on a Dask cluster.

Both yield ``(submission, record)`` as each grading finishes, in completion order; the
caller alone writes results, so storage never needs a lock.  A grading that raises is a
``judge_error`` record, never an exception out of here (invariant 6).

Threads suffice locally: each grading's learner code runs in its own sandboxed worker
process, and the judge side mostly waits on pipes.  One reference worker (``Oracle``) per
task and seed is shared by all the gradings of the batch that need it, so reference
outputs are computed once per task (on Dask: once per task per Dask worker process).
"""

from __future__ import annotations

import tempfile
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from .bank import Bank, load_bank
from .batch_discovery import Submission


class SchedulerError(Exception):
    """The cluster cannot be used (Dask missing, scheduler unreachable)."""


@dataclass(frozen=True)
class Options:
    seed: int | None          # None: each task's own seed
    strict: bool
    examples: int | None      # None: each check's own number
    isolation: str | None = None   # None: $JUDGE_ISOLATION, else auto

    def seed_for(self, task) -> int:
        return task.seed if self.seed is None else self.seed


class OraclePool:
    """One started Oracle per (task, seed), made on first use; a dead one is replaced,
    so one reference crash does not turn the rest of the batch into judge errors."""

    def __init__(self):
        self._lock = threading.Lock()
        self._slots: dict[tuple[str, int], list] = {}      # key -> [lock, oracle]

    def get(self, task, seed: int):
        from .runner import Oracle

        with self._lock:
            slot = self._slots.setdefault((task.id, seed), [threading.Lock(), None])
        with slot[0]:      # per task: starting one reference must not hold up the others
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
    from .runner import grade

    task = bank.get(sub.task_id)
    seed = opts.seed_for(task)
    if sub.refused:
        return record_of(sub, refused_report(task, sub, seed, opts).to_dict(), opts)
    try:
        with tempfile.TemporaryDirectory(prefix="judge-batch-") as tmp:
            path = Path(tmp) / Path(sub.path).name
            path.write_bytes(sub.source)
            report = grade(task, path, seed=seed, examples=opts.examples, strict=opts.strict,
                           oracle=oracles.get(task, seed), display_name=path.name,
                           isolation=opts.isolation)
    except Exception as exc:  # the judge's fault, recorded; the batch goes on
        return error_record(bank, sub, opts, exc)
    return record_of(sub, report.to_dict(), opts)


def refused_report(task, sub: Submission, seed: int, opts: Options):
    from . import __version__
    from .report import CheckResult, Report
    from .verdicts import Verdict

    report = Report(task=task.id, submission=sub.path, seed=seed, judge_version=__version__,
                    strict=opts.strict, title=task.title)
    report.checks.append(CheckResult(id="load", kind="load", required=True, status="error",
                                     message=sub.refused, verdict=Verdict.INVALID_SUBMISSION))
    return report.finish()


def error_record(bank: Bank, sub: Submission, opts: Options, exc: BaseException) -> dict:
    from .cli import judge_error_report

    task = bank.get(sub.task_id)
    report = judge_error_report(task, sub.path, opts.seed_for(task), opts.strict, exc)
    return record_of(sub, report.to_dict(), opts)


def record_of(sub: Submission, report: dict, opts: Options) -> dict:
    return {"learner": sub.learner, **report, "submission": sub.path, "sha256": sub.sha256,
            "examples": opts.examples}


def run_local(bank: Bank, subs: Iterable[Submission], opts: Options,
              workers: int) -> Iterator[tuple[Submission, dict]]:
    from .checks.property import warm_up_for_threads

    warm_up_for_threads()
    oracles = OraclePool()
    executor = ThreadPoolExecutor(workers, thread_name_prefix="judge-batch")
    try:
        futures = {executor.submit(grade_one, bank, s, opts, oracles): s for s in subs}
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
        oracles.close()


# ---------------------------------------------------------------- Dask

_REMOTE: dict[str, tuple[Bank, OraclePool]] = {}     # per batch token, in each Dask worker
_REMOTE_LOCK = threading.Lock()


def grade_remote(token: str, bank_root: str, sub: Submission, opts: Options) -> dict:
    """One Dask task.  The bank folder must be readable at the same path on the workers
    (a shared file system, or the bank shipped inside the installed package)."""
    from .checks.property import warm_up_for_threads

    with _REMOTE_LOCK:
        if token not in _REMOTE:
            warm_up_for_threads()   # Dask runs tasks in threads too
            _REMOTE[token] = (load_bank(bank_root), OraclePool())
        bank, oracles = _REMOTE[token]
    return grade_one(bank, sub, opts, oracles)


def close_remote(token: str) -> None:
    with _REMOTE_LOCK:
        entry = _REMOTE.pop(token, None)
    if entry is not None:
        entry[1].close()


def run_dask(address: str, bank: Bank, subs: Iterable[Submission],
             opts: Options) -> Iterator[tuple[Submission, dict]]:
    try:
        from distributed import Client, as_completed as dask_completed
    except ImportError:
        raise SchedulerError("--scheduler needs Dask: pip install 'jax-judge[dask]'") from None
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    token = uuid.uuid4().hex
    futures: dict = {}
    try:
        futures = {client.submit(grade_remote, token, str(bank.root), s, opts, pure=False,
                                 key=f"judge-{token[:8]}-{i}"): s for i, s in enumerate(subs)}
        for future in dask_completed(futures):
            sub = futures[future]
            try:
                record = future.result()
            except Exception as exc:  # the Dask worker died or could not import the judge
                record = error_record(bank, sub, opts, exc)
            yield sub, record
    finally:
        client.cancel(list(futures))             # interrupted: nothing left running for us
        try:
            client.run(close_remote, token)      # stop this batch's reference workers
        except Exception:  # a cluster going away must not hide the results already stored
            pass
        client.close()

