"""``judge batch``: grade a class.  Thin: parse the options, then discovery -> store ->
scheduler -> progress, and the class views at the end.  Each step is its own module:

    batch_discovery  which file is whose submission for which task
    batch_store      results.jsonl, append-only, resumable, crash-safe
    batch_schedule   threads here, or a Dask cluster; one reference worker per task
    batch_progress   the status line / log lines on stderr
    batch_gradebook  gradebook.csv and summary.json
    batch_emit       per-submission Exercism, Gradescope, JUnit files
"""

from __future__ import annotations

import os
import signal
import sys
import time
from contextlib import closing
from pathlib import Path

import click

from .batch_discovery import DiscoveryError, Submission, discover
from .batch_emit import EMIT_FORMATS, emit_all
from .batch_gradebook import gradebook_csv, summary_json, write_atomic
from .batch_progress import Progress
from .batch_schedule import Options, SchedulerError, run_dask, run_local
from .batch_store import ResultStore, StoreBusy
from .cli import isolation_option
from .sandbox import is_root
from .verdicts import Verdict

INTERRUPTED = 130      # the shell's code for Ctrl-C


def _csv_list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


@click.command(name="batch")
@click.argument("submissions", type=click.Path(exists=True))
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Output folder: results.jsonl, gradebook.csv, summary.json (created if needed).")
@click.option("--workers", type=click.IntRange(1, 1024), default=None,
              help="Gradings at once on this machine (default: the number of cores).")
@click.option("--tasks", "task_list", metavar="ID,...", help="Grade only these tasks.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Run the gradings on this Dask cluster instead (pip install 'jax-judge[dask]').")
@click.option("--emit", metavar="FORMAT,...",
              help=f"Also write per-submission files: {', '.join(EMIT_FORMATS)}.")
@click.option("--seed", type=int, default=None, help="Hypothesis seed (default: each task's).")
@click.option("--strict", is_flag=True, help="Count advisory checks (required: false) too.")
@click.option("--examples", type=click.IntRange(1, 100000), default=None,
              help="Number of generated examples for property checks.")
@isolation_option
@click.pass_context
def batch_command(ctx, submissions, out, workers, task_list, scheduler, emit, seed, strict,
                  examples, isolation):
    """Grade every submission in SUBMISSIONS: a folder laid out <learner>/<task_id>.py
    (or .ipynb), or a CSV manifest with columns learner,task,path.

    Results are appended to OUT/results.jsonl as each grading finishes; running the same
    command again grades only what has no result yet (an edited file is graded again).

    Exit status: 0 all graded, 2 usage error, 3 some gradings ended in a judge error
    (recorded; see summary.json; the next run grades those again), 130 interrupted (run it
    again to resume)."""
    from .bank import UnknownTask
    from .cli import fail_usage, open_bank, resolve_isolation

    asked = isolation
    isolation = resolve_isolation(asked)
    if isolation == "process" and asked != "process" and is_root():
        fail_usage("bubblewrap does not work here, and grading a class as root in process "
                   "isolation is weaker (README, Isolation, says how): install bubblewrap, "
                   "or pass --isolation process to grade this way anyway")
    bank = open_bank(ctx)
    selected = _csv_list(task_list) or list(bank.tasks)
    formats = _csv_list(emit)
    try:
        tasks = {t: bank.get(t) for t in selected}
    except UnknownTask as exc:
        fail_usage(str(exc))
    unknown = [f for f in formats if f not in EMIT_FORMATS]
    if unknown:
        fail_usage(f"--emit: unknown format {', '.join(unknown)} (one of {', '.join(EMIT_FORMATS)})")
    try:
        found = discover(submissions, set(bank.tasks), out)
    except DiscoveryError as exc:
        fail_usage(str(exc))
    plan = [s for s in found.submissions if s.task_id in tasks]
    opts = Options(seed=seed, strict=strict, examples=examples, isolation=isolation)
    key = lambda s: (s.learner, s.task_id, s.sha256, opts.seed_for(tasks[s.task_id]),
                     strict, examples)
    try:
        store = ResultStore(out).open()
    except StoreBusy as exc:
        fail_usage(str(exc))

    say = lambda text: click.echo(text, err=True)
    if store.repaired_bytes:
        say(f"results.jsonl: cut off a partial last line ({store.repaired_bytes} bytes) "
            "left by an interrupted run; that submission is graded again")
    if store.ignored_lines:
        say(f"results.jsonl: ignored {store.ignored_lines} unreadable or repeated lines")
    for path, why in found.skipped:
        say(f"not graded: {path}: {why}")
    todo = [s for s in plan if not store.settled(key(s))]
    retried = sum(1 for s in todo if key(s) in store.results)
    where = f"on {scheduler}" if scheduler else f"with {workers or os.cpu_count()} workers"
    say(f"{len(plan)} submissions, {len(plan) - len(todo)} already graded, "
        f"{len(todo)} to grade {where}"
        + (f" ({retried} of them ended in a judge error last time)" if retried else ""))

    progress = Progress(len(todo), already=len(plan) - len(todo))
    signal.signal(signal.SIGTERM, _interrupt)   # a cluster's time limit: stop as Ctrl-C does
    status = graded = 0
    started = time.monotonic()
    try:
        results = run_dask(scheduler, bank, todo, opts) if scheduler else \
            run_local(bank, todo, opts, workers or os.cpu_count() or 1)
        with closing(results):
            for sub, record in results:
                store.add(record)
                graded += 1
                progress.add(sub.learner, sub.task_id, record["verdict"], record["elapsed_s"])
    except KeyboardInterrupt:
        status = INTERRUPTED
    except SchedulerError as exc:
        say(f"judge: {exc}")
        status = 2
    finally:
        progress.finish()
        current = [store.results[key(s)] for s in plan if key(s) in store.results]
        columns = sorted(tasks) if task_list else sorted({s.task_id for s in plan})
        write_views(Path(out), sorted(found.learners), columns, plan, current, found.skipped,
                    opts, formats)
        store.close()
    say(f"graded {graded} in {time.monotonic() - started:.1f} s; "
        f"gradebook: {Path(out) / 'gradebook.csv'}")
    if status == INTERRUPTED:
        say("interrupted: run the same command again to grade the rest")
    elif not status and any(r["verdict"] == Verdict.JUDGE_ERROR for r in current):
        status = 3
    sys.exit(status)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def write_views(out: Path, learners: list[str], columns: list[str], plan: list[Submission],
                current: list[dict], skipped: list, opts: Options, formats: list[str]) -> None:
    by_sub = {(r["learner"], r["task"]): r["verdict"] for r in current}
    cells = {(s.learner, s.task_id): by_sub.get((s.learner, s.task_id), "pending") for s in plan}
    write_atomic(out / "gradebook.csv", gradebook_csv(learners, columns, cells))
    options = {"seed": opts.seed, "strict": opts.strict, "examples": opts.examples}
    write_atomic(out / "summary.json",
                 summary_json(current, len(plan) - len(current), skipped, options))
    emit_all(out, current, formats)
