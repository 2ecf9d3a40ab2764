"""``judge batch``: grade a class.  The CLI parses the options into a ``Request`` and
calls ``run``; this module runs discovery -> store -> grader -> progress, and writes
the class views at the end (also after Ctrl-C).  Each step is its own module:

    discovery     which file is whose submission for which task
    store         results.jsonl, append-only, resumable, crash-safe
    schedule      threads here, or a Dask cluster; one reference worker per task
    progress      the status line / log lines on stderr
    gradebook     the class's cells and points; gradebook.csv and summary.json
    emit          per-submission Exercism, Gradescope, JUnit files
    class_report  report.html, and a page per grading under reports/
"""

from __future__ import annotations

import difflib
import signal
import time
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

from ..bank import Bank, UnknownTask
from ..scoring import LatePolicy
from ..verdicts import Verdict
from ..writers import PluginError
from .discovery import DiscoveryError, Found, Submission, discover
from .emit import emit_all, emit_formats
from .gradebook import Gradebook, build, gradebook_csv, summary_json
from .progress import Progress
from .schedule import Options, SchedulerError, open_grader
from .store import ResultStore, StoreBusy, write_atomic

INTERRUPTED = 130  # the shell's code for Ctrl-C
JUDGE_ERRORS = 3


class UsageError(Exception):
    """Bad options or input, said before anything is graded (exit 2)."""


@dataclass
class Request:
    submissions: str
    out: Path
    workers: int | None = None
    tasks: list[str] = field(default_factory=list)  # empty: every task of the bank
    scheduler: str | None = None
    emit: list[str] = field(default_factory=list)
    opts: Options = field(default_factory=Options)
    only: list[str] = field(default_factory=list)  # "learner" or "learner/task"
    force: bool = False
    deadline: datetime | None = None
    late_policy: LatePolicy | None = None  # past the deadline (judge/scoring.py)


def run(bank: Bank, req: Request, say: Callable[[str], None]) -> int:
    """Grade the class; the exit status.  Raises UsageError before grading anything."""
    try:
        tasks = {t: bank.get(t) for t in (req.tasks or list(bank.tasks))}
    except UnknownTask as exc:
        raise UsageError(str(exc)) from None
    try:
        emitted = emit_formats()
    except PluginError as exc:  # a course's report format that breaks the contract
        raise UsageError(str(exc)) from None
    unknown = [f for f in req.emit if f not in emitted]
    if unknown:
        raise UsageError(
            f"--emit: unknown format {', '.join(unknown)} (one of {', '.join(emitted)})"
        )
    try:
        found = discover(
            req.submissions,
            set(bank.tasks),
            req.out,
            {t: task.entrypoint for t, task in bank.tasks.items()},
        )
    except DiscoveryError as exc:
        raise UsageError(str(exc)) from None
    for s in found.skipped:
        say(f"not graded: {s.path}: {s.why}")
    plan = [s for s in found.submissions if s.task_id in tasks]
    if not plan:
        raise UsageError(nothing_found(req, found, tasks))
    chosen = select(plan, req.only, found)
    opts = req.opts
    key = lambda s: (
        s.learner,
        s.task_id,
        s.sha256,
        opts.seed_for(tasks[s.task_id]),
        opts.strict,
        opts.examples,
    )
    try:
        store = ResultStore(req.out).open()
    except StoreBusy as exc:
        raise UsageError(str(exc)) from None

    if store.repaired_bytes:
        say(
            f"results.jsonl: cut off a partial last line ({store.repaired_bytes} bytes) "
            "left by an interrupted run; that submission is graded again"
        )
    if store.ignored_lines:
        say(f"results.jsonl: ignored {store.ignored_lines} unreadable lines")
    todo = [s for s in chosen if req.force or not store.settled(key(s))]
    retried = sum(1 for s in todo if key(s) in store.results and not store.settled(key(s)))
    where = f"on {req.scheduler}" if req.scheduler else f"with {req.workers or _cores()} workers"
    graded_before = sum(store.settled(key(s)) for s in plan)
    say(
        f"{len(plan)} submissions, {graded_before} already graded, {len(todo)} to grade {where}"
        + (f" (--only: {len(chosen)} of them)" if req.only else "")
        + (" (--force: graded again)" if req.force and todo else "")
        + (f" ({retried} of them ended in a judge error last time)" if retried else "")
    )

    progress = Progress(len(todo), already=len(plan) - len(todo))
    signal.signal(signal.SIGTERM, _interrupt)  # a cluster's time limit: stop as Ctrl-C does
    status = graded = 0
    started = time.monotonic()
    grader = None
    try:
        if todo:
            grader = open_grader(bank, workers=req.workers, scheduler=req.scheduler)
            futures = {grader.submit(s, opts): s for s in todo}
            for future in as_completed(futures):
                sub, record = futures[future], future.result()
                store.add(record, force=req.force)
                graded += 1
                progress.add(sub.learner, sub.task_id, record["verdict"], record["elapsed_s"])
    except KeyboardInterrupt:
        status = INTERRUPTED
    except SchedulerError as exc:
        say(f"judge: {exc}")
        status = 2
    finally:
        if grader is not None:
            grader.close()
        progress.finish()
        current = [store.results[key(s)] for s in plan if key(s) in store.results]
        columns = sorted(tasks) if req.tasks else sorted({s.task_id for s in plan})
        book = build(
            found.learners,
            columns,
            tasks,
            plan,
            current,
            found.why_missing,
            opts.strict,
            req.deadline,
            req.late_policy,
        )
        write_views(Path(req.out), bank, book, found, opts, req.emit)
        store.close()
    say(
        f"graded {graded} in {time.monotonic() - started:.1f} s; "
        f"gradebook: {Path(req.out) / 'gradebook.csv'}; class report: "
        f"{Path(req.out) / 'report.html'}"
    )
    if status == INTERRUPTED:
        say("interrupted: run the same command again to grade the rest")
    elif not status and any(r["verdict"] == Verdict.JUDGE_ERROR for r in current):
        status = JUDGE_ERRORS
    return status


def nothing_found(req: Request, found: Found, tasks: dict) -> str:
    where = req.submissions
    if found.submissions:
        return (
            f"nothing to grade in {where} for --tasks {','.join(req.tasks)}: "
            f"no learner handed in {' or '.join(sorted(tasks))}"
        )
    if found.skipped:
        return (
            f"found no submissions in {where}: none of the {len(found.skipped)} files "
            "above is named after a task of the bank"
        )
    return (
        f"found no submissions in {where}: expected a folder per learner holding "
        "<task_id>.py or .ipynb files, or a CSV manifest learner,task,path"
    )


def select(plan: list[Submission], only: list[str], found: Found) -> list[Submission]:
    """The submissions ``--only`` names: ``alice`` (all of hers), ``alice/tree_sgd``."""
    if not only:
        return plan
    chosen = []
    for item in only:
        learner, _, task_id = item.partition("/")
        picked = [s for s in plan if s.learner == learner and task_id in ("", s.task_id)]
        if not picked:
            close = difflib.get_close_matches(learner, sorted(found.learners), n=1)
            hint = f" (did you mean {close[0]}?)" if close and close[0] != learner else ""
            what = f"{learner}'s {task_id}" if task_id else f"anything of {learner}'s"
            raise UsageError(f"--only {item}: found no submission of {what}{hint}")
        chosen += [s for s in picked if s not in chosen]
    return chosen


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _cores() -> int:
    import os

    return os.cpu_count() or 1


def write_views(
    out: Path, bank: Bank, book: Gradebook, found: Found, opts: Options, formats: list[str]
) -> None:
    from ..runner import missing_report
    from .class_report import write_pages

    write_atomic(out / "gradebook.csv", gradebook_csv(book))
    options = {
        "seed": opts.seed,
        "strict": opts.strict,
        "examples": opts.examples,
        "deadline": book.deadline.isoformat() if book.deadline else None,
    }
    write_atomic(out / "summary.json", summary_json(book, found.skipped, options))

    def missing(cell):
        task = bank.get(cell.task_id)
        return missing_report(
            task, f"{cell.learner}/{cell.task_id}", cell.why, opts.seed, opts.strict
        )

    emit_all(out, book, formats, missing)
    write_pages(out, book, found.skipped, options)
