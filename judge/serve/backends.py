"""Where a grading runs.  ``grade(job)`` returns the report (the ``judge run --format
json`` object) and never raises: a grading the judge failed is a ``judge_error`` report.

``LocalBackend``: here, in the calling thread, with a warm learner worker and the
task's warm reference.  Isolation and limits are exactly ``judge run``'s: the same
``Grading``, the same sandboxed worker, only started earlier.

``DaskBackend``: on a Dask cluster, through the batch's grader (``judge batch
--scheduler`` sends its gradings the same way): each Dask worker process keeps one
reference worker per task; the learner's worker starts with its grading there.
"""

from __future__ import annotations

from pathlib import Path

from ..bank import Bank
from ..runner import grade, judge_error_report
from .store import Job
from .warm import LearnerPool, WarmOracles


class LocalBackend:
    name = "local"

    def __init__(
        self,
        bank: Bank,
        warm_workers: int,
        retire_oracles_after: int = 200,
        *,
        keep_references: int = 8,
        reference_idle_s: float = 300.0,
        worker_idle_s: float = 300.0,
        isolation: str | None = None,
    ):
        self.bank = bank
        self.pool = LearnerPool(bank, warm_workers, idle_s=worker_idle_s, isolation=isolation)
        self.oracles = WarmOracles(
            bank, retire_oracles_after, keep=keep_references, idle_s=reference_idle_s
        )

    def start(self) -> None:
        self.pool.start()
        self.oracles.start()

    def grade(self, job: Job, *, fresh: bool = False) -> dict:
        """``fresh``: nothing warm (a second try after a judge error: a warm worker that
        died while it waited, a reference worker at the end of its life)."""
        task = self.bank.get(job.task)
        shared = not fresh and job.seed == task.seed
        warm = self.oracles.acquire(task) if shared else None
        try:
            worker = None if fresh else self.pool.take(task)
            # the bytes the request carried, checked and stored once (service.py, store.py),
            # handed to the grading as they are: no file written here to be read back and
            # bounded again (the name says only .py or .ipynb, and what the report shows)
            report = grade(
                task,
                Path(job.filename),
                seed=job.seed,
                strict=job.strict,
                oracle=warm.oracle if warm else None,
                worker=worker,
                isolation=self.pool.isolation,  # a restart after a crash is held alike
                display_name=job.filename,
                source_bytes=job.source,
            )
        except Exception as exc:  # the judge's fault, recorded; the service goes on
            report = judge_error_report(task, job.filename, job.seed, job.strict, exc)
        finally:
            if warm is not None:
                self.oracles.release(task, warm)
        out = report.to_dict()
        out["submission"] = job.filename  # not the temporary folder it was graded in
        return out

    def status(self) -> dict:
        return {
            "scheduler": self.name,
            "isolation": self.pool.isolation,
            "workers_warm": self.pool.warm,
            "workers_warm_target": self.pool.target,
            "workers_kept_at_most": self.pool.size,
            "workers_kept_idle": self.pool.keep_idle,
            "workers_idle_s": self.pool.idle_s,
            "workers_released": self.pool.released,
            "warm_workers_used": self.pool.taken,
            "warm_workers_missed": self.pool.missed,
            "oracles_warm": self.oracles.warm,
            "oracles_warm_target": self.oracles.target,
            "oracles_kept_at_most": self.oracles.keep,
            "oracles_idle_s": self.oracles.idle_s,
            "oracles_released": self.oracles.released,
        }

    def close(self) -> None:
        self.pool.close()
        self.oracles.close()


class SchedulerError(Exception):
    """The cluster cannot be used (Dask missing, scheduler unreachable)."""


class DaskBackend:
    name = "dask"

    def __init__(self, bank: Bank, address: str):
        from ..batch.schedule import SchedulerError as BatchSchedulerError
        from ..batch.schedule import open_grader

        self.bank, self.address = bank, address
        try:
            self.grader = open_grader(bank, scheduler=address)
        except BatchSchedulerError as exc:
            raise SchedulerError(str(exc)) from None
        self.pool = None

    def start(self) -> None:
        pass

    def grade(self, job: Job, *, fresh: bool = False) -> dict:
        """``fresh`` changes nothing here: nothing is warm on the cluster's side but its
        references, and a dead one is replaced there."""
        from ..batch.discovery import Submission
        from ..batch.schedule import Options
        from ..report import Report

        sub = Submission(learner=job.id, task_id=job.task, path=job.filename, source=job.source)
        try:
            record = self.grader.submit(sub, Options(seed=job.seed, strict=job.strict)).result()
            out = Report.from_dict(record).to_dict()  # the report, without the batch's fields
        except Exception as exc:
            task = self.bank.get(job.task)
            out = judge_error_report(task, job.filename, job.seed, job.strict, exc).to_dict()
        out["submission"] = job.filename
        return out

    def status(self) -> dict:
        return {
            "scheduler": self.name,
            "address": self.address,
            "workers_warm": 0,
            "workers_warm_target": 0,
            "oracles_warm": 0,
            "oracles_warm_target": 0,
        }

    def close(self) -> None:
        self.grader.close()
