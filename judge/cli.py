"""The ``judge`` command: parse the arguments, hand the work to the module that does it
(the bank, the runner, batch, serve, validate), print what it gave, exit with its code.

Two jobs of ``judge run`` live here too, since they are about the command's own time:
the learner's worker is started before the task is parsed (it imports jax meanwhile)
and handed to the grading, its only owner from then on; and one notebook is graded
against several tasks in turn (``--tasks``)."""

from __future__ import annotations

import atexit
import functools
import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from .bank import BankError, UnknownTask, load_bank
from .report import Report
from .verdicts import Verdict

USAGE = 2


def fail_usage(message: str) -> NoReturn:
    click.echo(f"judge: {message}", err=True)
    sys.exit(USAGE)


def open_bank(ctx: click.Context, lazy: bool = False, grading: bool = False):
    """The chosen bank; ``grading``: one that holds its references (not the public bank
    a learner's install carries), else a usage error that says where grading is."""
    try:
        bank = load_bank(ctx.obj.get("bank"), lazy=lazy)
        return bank.require_references() if grading else bank
    except BankError as exc:
        fail_usage(str(exc))


def get_task(
    ctx: click.Context,
    task_id: str,
    bank=None,
    fmt: str | None = None,
    submission: str = "",
    seed: int | None = None,
    strict: bool = False,
):
    """The task; a usage error naming the closest ids when there is none.  A platform
    reading results.json (a format whose writer says ``RESULTS_FILE``) still gets one,
    scoring 0 and saying why, since it shows a broken grader when the file is absent."""
    bank = bank or open_bank(ctx, lazy=True)
    try:
        return bank.get(task_id)
    except (UnknownTask, BankError) as exc:
        if results_file(fmt):
            from .standin_reports import no_task_report

            emit(no_task_report(task_id, submission, str(exc), seed, strict), fmt)  # type: ignore[arg-type]  # results_file(None) is false
        fail_usage(str(exc))


def emit(report: Report, fmt: str) -> None:
    from .writers import writer

    writer(fmt)(report, sys.stdout, color=fmt == "text" and sys.stdout.isatty())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--bank",
    envvar="JUDGE_BANK",
    type=click.Path(file_okay=False),
    help="Bank folder holding tasks.yaml, tasks/ and reference/ (default: the "
    "checkout's bank, or the public bank a wheel ships, which cannot "
    "grade; env JUDGE_BANK).",
)
@click.version_option(package_name="jax-judge", message="jax-judge %(version)s")
@click.pass_context
def main(ctx: click.Context, bank: str | None) -> None:
    """Grade small JAX functions: right on every input, and no needless retraces."""
    # The judge's numpy only handles small arrays; OpenBLAS's thread pool would spin up
    # on import and take CPU from the workers that are importing jax on the same cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    ctx.ensure_object(dict)
    ctx.obj["bank"] = bank


ISOLATION_HELP = (
    "How the learner's code is isolated: bubblewrap (a sandbox per submission; fails "
    "when it cannot be had), forked (forked from a warm bubblewrap sandbox that "
    "imported jax once, kept apart by Landlock and seccomp), process, or auto "
    "({auto}; env JUDGE_ISOLATION).  README, Isolation, says what each holds."
)


def isolation_option(f, auto: str = "bubblewrap when it works"):
    return click.option(
        "--isolation",
        type=click.Choice(["auto", "bubblewrap", "forked", "process"]),
        envvar="JUDGE_ISOLATION",
        default="auto",
        show_default=True,
        help=ISOLATION_HELP.format(auto=auto),
    )(f)


def resolve_isolation(asked: str) -> str:
    """The mode the learner's workers will get; a usage error when it cannot be had."""
    from .sandbox import IsolationUnavailable
    from .sandbox import resolve_isolation as resolve

    try:
        return resolve(asked)
    except IsolationUnavailable as exc:
        fail_usage(str(exc))


class FormatChoice(click.Choice):
    """The report formats, found when first needed (judge/writers/, a course's own
    among them), so that importing the command finds no plug-in."""

    def __init__(self) -> None:
        super().__init__([])

    @property
    def choices(self):
        from .writers import PluginError, formats

        try:
            return formats()
        except PluginError as exc:
            fail_usage(str(exc))

    @choices.setter
    def choices(self, value) -> None:
        pass

    def convert(self, value, param, ctx):
        from .writers import builtin

        if isinstance(value, str) and builtin(value) is not None:
            return value  # one of the judge's own: no installed package read
        return super().convert(value, param, ctx)


def format_option(f):
    return click.option(
        "--format",
        "fmt",
        type=FormatChoice(),
        default="text",
        show_default=True,
        help="Report format.",
    )(f)


@main.command()
@click.argument("arguments", nargs=-1, required=True, metavar="TASK_ID SUBMISSION")
@format_option
@click.option(
    "--tasks",
    "task_list",
    metavar="ID,...",
    help="Grade SUBMISSION (one notebook holding several steps) against each of "
    "these tasks, one report per task (Exercism, Gradescope, JUnit, HTML: one file of "
    "them all); then give SUBMISSION alone.",
)
@click.option("--strict", is_flag=True, help="Count advisory checks (required: false) too.")
@click.option("--seed", type=int, default=None, help="Hypothesis seed (default: the task's).")
@click.option(
    "--examples",
    type=click.IntRange(1, 100000),
    default=None,
    help="Number of generated examples for property checks.",
)
@isolation_option
@click.pass_context
def run(ctx, arguments, fmt, task_list, strict, seed, examples, isolation):
    """Grade SUBMISSION (a .py file or a .ipynb notebook) against task TASK_ID.

    Exit status: 0 accepted, 1 not accepted, 2 usage error, 3 judge error (with --tasks:
    the worst of the tasks')."""
    if task_list is not None:
        if len(arguments) != 1:
            fail_usage(
                "with --tasks, give the submission alone: judge run --tasks "
                "bucketed_mean,col_mean week3.ipynb"
            )
        sys.exit(
            grade_each_task(
                ctx, _csv_list(task_list), arguments[0], fmt, strict, seed, examples, isolation
            )
        )
    if len(arguments) != 2:
        fail_usage(
            "give a task and a submission: judge run TASK_ID SUBMISSION (or "
            "judge run --tasks ID,... SUBMISSION)"
        )
    task_id, submission = arguments
    sys.exit(run_one(ctx, task_id, submission, fmt, strict, seed, examples, isolation))


def run_one(ctx, task_id, submission, fmt, strict, seed, examples, isolation, show=None) -> int:
    """Grade one task and emit its report (``show``: how, default ``emit``); the exit status."""
    from .sandbox import check_isolation_soon
    from .sources import SubmissionRefused, read_submission

    check_isolation_soon()  # while the bank loads
    path = Path(submission)
    source = None  # the bytes graded, read once here
    try:
        source = read_submission(path)
    except SubmissionRefused:
        pass  # graded: the report says invalid_submission, and why
    except OSError as exc:
        problem = f"cannot read {submission}: {exc.strerror or exc}"
        if results_file(fmt):  # a platform reading results.json must find one (score 0)
            from .standin_reports import missing_report

            task = get_task(ctx, task_id, fmt=fmt, submission=str(path), seed=seed, strict=strict)
            emit(missing_report(task, str(path), problem, seed, strict), fmt)
        fail_usage(problem)
    isolation = resolve_isolation(isolation)
    bank = open_bank(ctx, lazy=True, grading=True)
    worker = learner_worker(bank, task_id, isolation)  # imports jax while the task is parsed
    try:
        task = get_task(ctx, task_id, bank, fmt=fmt, submission=str(path), seed=seed, strict=strict)
    except BaseException:  # a usage error: no grading to hand the worker to
        if worker is not None:
            worker.close()
        raise
    from .runner import grade, judge_error_report

    try:  # the grading owns the worker from here, and closes it
        report = grade(
            task,
            path,
            seed=seed,
            examples=examples,
            strict=strict,
            isolation=isolation,
            worker=worker,
            source_bytes=source,
        )
    except Exception as exc:  # the judge's own fault: say so, never a traceback
        report = judge_error_report(task, path, seed, strict, exc)
    (show or emit)(report, fmt)
    return report.exit_code


def grade_each_task(
    ctx, task_ids: list[str], submission: str, fmt: str, strict: bool, seed, examples, isolation
) -> int:
    """One notebook holding several steps, graded against each task in turn.  The
    format's ``write_many`` (judge/writers/) makes one document of the reports: one
    Gradescope or Exercism results.json holding every task's tests, one JUnit XML with a
    testsuite per task, one HTML page with a section per task; text is one report after
    another, json one object a line, each written as its task is graded.  The exit
    status is the worst of the tasks'.

    Every task is looked up before any is graded: an unknown one is a usage error, except
    for a format a platform reads as its results file (which must be written): there it
    stands in the file, scoring 0 and saying why, as does an unreadable submission."""
    if not task_ids:
        fail_usage("--tasks: name the tasks, as --tasks bucketed_mean,col_mean")
    from .writers import many_writer

    ids = list(dict.fromkeys(task_ids))
    many = many_writer(fmt)
    bank = open_bank(ctx, lazy=True)
    reports: dict[str, Report] = {}  # the tasks that cannot be graded, stood in
    statuses = []
    for task_id in ids:
        try:
            bank.get(task_id)
        except (UnknownTask, BankError) as exc:
            if not results_file(fmt):
                fail_usage(str(exc))
            from .standin_reports import no_task_report

            reports[task_id] = no_task_report(task_id, submission, str(exc), seed, strict)
            statuses.append(USAGE)
    from .sources import SubmissionRefused, read_submission

    try:
        read_submission(Path(submission))  # as run_one reads it: a FIFO is refused unread
    except SubmissionRefused:
        pass  # graded: each report says invalid_submission, and why
    except OSError as exc:
        problem = f"cannot read {submission}: {exc.strerror or exc}"
        if not results_file(fmt):
            fail_usage(problem)
        from .standin_reports import missing_report

        for task_id in ids:
            if task_id not in reports:
                reports[task_id] = missing_report(
                    bank.get(task_id), submission, problem, seed, strict
                )
        statuses.append(USAGE)

    def collect(report: Report, fmt: str) -> None:
        reports[report.task] = report

    for i, task_id in enumerate(ids):
        if task_id in reports:
            continue
        if many is None and i and fmt == "text":
            click.echo("")
        show = collect if many is not None else None
        statuses.append(
            run_one(ctx, task_id, submission, fmt, strict, seed, examples, isolation, show)
        )
        sys.stdout.flush()
    if many is not None:
        many([reports[t] for t in ids], sys.stdout)
    else:  # a course's results-file format without write_many: its stand-ins last
        for task_id in ids:
            if task_id in reports:
                emit(reports[task_id], fmt)
    if USAGE in statuses and many is not None:
        click.echo(f"judge: {submission}: some tasks were not graded (the file says why)", err=True)
    return max(statuses)


def learner_worker(bank, task_id: str, isolation: str):
    """A learner's worker for the task, started before the task is parsed; None where
    it cannot start here (the grading then starts one, and reports why it failed)."""
    from .session import start_learner_worker

    try:
        limits, devices = bank.worker_settings(task_id)
    except (BankError, UnknownTask):
        return None  # said by get_task, as a usage error
    try:
        return start_learner_worker(
            limits, hidden_paths=bank.hidden_paths(), isolation=isolation, devices=devices
        )
    except Exception:
        return None


def results_file(fmt: str | None) -> bool:
    """Does a platform read ``fmt`` as its grader's results file?  It shows a broken
    grader when the file is absent, so a missing submission still writes one (the
    format's writer says so: judge/writers/)."""
    from .writers import results_file as reads_results

    return fmt is not None and reads_results(fmt)


@main.command()
@click.argument("submissions", type=click.Path(exists=True))
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False),
    help="Output folder: results.jsonl, gradebook.csv, summary.json, report.html "
    "(created if needed).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 1024),
    default=None,
    help="Gradings at once on this machine (default: the number of cores).",
)
@click.option("--tasks", "task_list", metavar="ID,...", help="Grade only these tasks.")
@click.option(
    "--only",
    "only",
    metavar="LEARNER[/TASK],...",
    help="Grade only these learners (alice) or gradings (alice/tree_sgd).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Grade again what already has a result (the new result replaces it).",
)
@click.option(
    "--deadline",
    metavar="TIME",
    help="Mark submissions handed in after this ISO 8601 time as late "
    "(needs a manifest's submitted column).",
)
@click.option(
    "--late-penalty",
    metavar="PENALTY",
    help="With --deadline: take this share of a late submission's points off, "
    "per started day or hour late (10%/day, 5%/hour) or once (50%).",
)
@click.option(
    "--grace",
    metavar="DURATION",
    help="With --deadline: a submission this soon after it (15m, 2h, 1d) is on time.",
)
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    help="Run the gradings on this Dask cluster instead (pip install 'jax-judge[dask]').",
)
@click.option(
    "--emit",
    metavar="FORMAT,...",
    help="Also write per-submission files: exercism, gradescope, junit.",
)
@click.option("--seed", type=int, default=None, help="Hypothesis seed (default: each task's).")
@click.option("--strict", is_flag=True, help="Count advisory checks (required: false) too.")
@click.option(
    "--examples",
    type=click.IntRange(1, 100000),
    default=None,
    help="Number of generated examples for property checks.",
)
@isolation_option
@click.pass_context
def batch(
    ctx,
    submissions,
    out,
    workers,
    task_list,
    only,
    force,
    deadline,
    late_penalty,
    grace,
    scheduler,
    emit,
    seed,
    strict,
    examples,
    isolation,
):
    """Grade every submission in SUBMISSIONS: a folder laid out <learner>/<task_id>.py
    (or .ipynb), or a CSV manifest with columns learner,task,path[,submitted].

    Results are appended to OUT/results.jsonl as each grading finishes; running the same
    command again grades only what has no result yet (an edited file is graded again).

    Exit status: 0 all graded, 2 usage error (also: nothing found to grade), 3 some
    gradings ended in a judge error (recorded; see summary.json; the next run grades
    those again), 130 interrupted (run it again to resume)."""
    # imported here, not at the top: `judge run` must not pay for the scheduler's imports
    from .batch.command import Request, UsageError, run
    from .batch.discovery import parse_time
    from .batch.schedule import Options
    from .sandbox import is_root

    asked, isolation = isolation, resolve_isolation(isolation)
    if isolation == "process" and asked != "process" and is_root():
        fail_usage(
            "bubblewrap does not work here, and grading a class as root in process "
            "isolation is weaker (README, Isolation, says how): install bubblewrap, "
            "or pass --isolation process to grade this way anyway"
        )
    bank = open_bank(ctx, grading=True)
    try:
        when = parse_time(deadline) if deadline else None
    except ValueError:
        fail_usage(f"--deadline: '{deadline}' is not a time (ISO 8601: 2026-11-20T23:59)")
    if when is not None and not _names_a_zone(deadline):
        click.echo(
            f"judge: --deadline {deadline} names no time zone: taken as this machine's "
            f"local time, {when.isoformat()} (add Z or +01:00 to say which)",
            err=True,
        )
    from .scoring import LatePolicy, PolicyError

    if (late_penalty or grace) and not deadline:
        fail_usage(
            f"{'--late-penalty' if late_penalty else '--grace'} needs --deadline (the "
            "time a submission is late after)"
        )
    try:
        policy = LatePolicy.parse(late_penalty, grace)
    except PolicyError as exc:
        fail_usage(str(exc))
    request = Request(
        submissions=submissions,
        out=Path(out),
        workers=workers,
        tasks=_csv_list(task_list),
        scheduler=scheduler,
        emit=_csv_list(emit),
        opts=Options(seed=seed, strict=strict, examples=examples, isolation=isolation),
        only=_csv_list(only),
        force=force,
        deadline=when,
        late_policy=policy,
    )
    try:
        status = run(bank, request, lambda text: click.echo(text, err=True))
    except UsageError as exc:
        fail_usage(str(exc))
    sys.exit(status)


def _csv_list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _names_a_zone(text: str) -> bool:
    from datetime import datetime

    return datetime.fromisoformat(text.strip()).tzinfo is not None


@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (0.0.0.0: every interface; other machines need --tokens).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on (0: any free port, printed at start).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 256),
    default=None,
    help="Gradings at once (default: the number of cores; with --scheduler, "
    "gradings in flight on the cluster, default 16).",
)
@click.option(
    "--warm",
    type=click.IntRange(0, 64),
    default=None,
    help="Learner workers kept started, waiting for a submission (default: --workers).",
)
@click.option(
    "--queue",
    "queue_limit",
    type=click.IntRange(1, 1_000_000),
    default=1000,
    show_default=True,
    help="Submissions that may wait; beyond, 503 with Retry-After.",
)
@click.option(
    "--state",
    default="judge-serve.sqlite",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="SQLite file holding every submission and report (created if needed).",
)
@click.option(
    "--tokens",
    type=click.Path(dir_okay=False),
    help="YAML file of bearer tokens (name, token, per_minute); without it only "
    "this machine may call.",
)
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    help="Grade on this Dask cluster instead of here (pip install 'jax-judge[serve,dask]').",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    show_default=True,
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer requests for this Host name (the listen address and "
    "localhost always); repeatable.  Any other is refused (DNS rebinding).",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="https://SITE",
    help="Let pages of this origin call the API from a browser (CORS); repeatable. "
    "Pages of any other origin are refused.",
)
@click.option(
    "--allow-callback-host",
    "allow_callback_hosts",
    multiple=True,
    metavar="NAME|ADDRESS|NETWORK",
    help="Let callback_url reach this name, address or network although it is "
    "not public (e.g. 127.0.0.1 for a site on this machine); repeatable.",
)
@click.option(
    "--keep-references",
    type=click.IntRange(1, 1000),
    default=8,
    show_default=True,
    help="Reference workers kept warm at most (each warms when its task is first "
    "graded; past this, the least recently used idle one is given back).",
)
@click.option(
    "--reference-idle",
    "reference_idle_s",
    type=click.FloatRange(1, 86400),
    default=300,
    show_default=True,
    metavar="SECONDS",
    help="A reference idle this long gives its memory back.",
)
@click.option(
    "--worker-idle",
    "worker_idle_s",
    type=click.FloatRange(1, 86400),
    default=300,
    show_default=True,
    metavar="SECONDS",
    help="After this long without a submission, the warm learner workers give their "
    "memory back but one (the pool fills again with the next submission).",
)
@click.option(
    "--gradebook",
    "gradebook",
    type=click.Choice(["best", "last"]),
    default="best",
    show_default=True,
    help="The attempt a learner's gradebook cell shows.",
)
@functools.partial(isolation_option, auto="forked where it works, else as judge run")
@click.pass_context
def serve(
    ctx,
    host,
    port,
    workers,
    warm,
    queue_limit,
    state,
    tokens,
    scheduler,
    log_level,
    allow_hosts,
    allow_origins,
    allow_callback_hosts,
    keep_references,
    reference_idle_s,
    worker_idle_s,
    gradebook,
    isolation,
):
    """Serve the grading API (/v1), its metrics and a page for people at /.

    POST /v1/submissions {"task": ID, "source": TEXT} answers 202 {"id": ...} at once;
    GET /v1/submissions/ID?wait=30 gives the report (the `judge run --format json`
    object) when it is graded.  Every submission is kept in the --state file: a
    service that is stopped or killed grades what was waiting when it starts again.
    See docs/serve.md."""
    # imported here, not at the top: `judge run` must not pay for the service's imports
    from .serve.command import ServeRequest, UsageError
    from .serve.command import run as run_service

    bank = open_bank(ctx, grading=True)
    request = ServeRequest(
        host=host,
        port=port,
        workers=workers,
        warm=warm,
        queue=queue_limit,
        state=state,
        tokens=tokens,
        scheduler=scheduler,
        log_level=log_level,
        allow_hosts=allow_hosts,
        allow_origins=allow_origins,
        allow_callback_hosts=allow_callback_hosts,
        keep_references=keep_references,
        reference_idle_s=reference_idle_s,
        worker_idle_s=worker_idle_s,
        gradebook=gradebook,
        isolation=isolation,
    )
    try:
        status = run_service(
            bank, request, lambda text: click.echo(f"judge serve: {text}", err=True)
        )
    except UsageError as exc:
        fail_usage(str(exc))
    sys.exit(status)


@main.command(name="list")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.pass_context
def list_(ctx, fmt):
    """The bank's tasks, grouped by course step."""
    import json

    from .catalog import listing, listing_text

    bank = open_bank(ctx)
    click.echo(json.dumps(listing(bank), indent=2) if fmt == "json" else listing_text(bank))


@main.command()
@click.argument("task_id")
@click.option("--starter", is_flag=True, help="Print only the starter file (redirect it to begin).")
@click.pass_context
def show(ctx, task_id, starter):
    """A task's statement, signature, checks and starter."""
    from .catalog import show_text

    task = get_task(ctx, task_id)
    if starter:
        try:
            click.echo(task.starter_path.read_text(encoding="utf-8"), nl=False)
        except OSError as exc:
            fail_usage(f"task {task_id} has no readable starter: {exc.strerror or exc}")
        return
    click.echo(show_text(task), nl=False)


@main.command()
@click.argument("task_id")
@click.argument("number", type=click.IntRange(1, 100), default=1)
@click.pass_context
def hint(ctx, task_id, number):
    """The task's NUMBER-th hint (default the first): a nudge, not the answer."""
    from .learner_api import hint as read_hint

    task = get_task(ctx, task_id)  # this bank's hints, even where JUDGE_SERVER is set
    click.echo(repr(read_hint(task.id, number, bank=str(task.bank.root))))


@main.command()
@click.argument("task_id")
@click.option(
    "--step", type=click.IntRange(0, 1000), default=0, show_default=True, help="Course step number."
)
@click.option("--title", default="TODO: a one-line title", help="One line for people.")
@click.pass_context
def new(ctx, task_id, step, title):
    """Scaffold a new task in the bank (never overwrites anything)."""
    from .scaffold import ScaffoldError, create_task

    bank = open_bank(ctx)
    try:
        made = create_task(bank, task_id, step, title)
    except ScaffoldError as exc:
        fail_usage(str(exc))
    click.echo(f"created task '{task_id}':")
    for path in made:
        click.echo(f"  {path}")
    click.echo(f"next: fill in the TODOs, then run `judge validate {task_id}` until it says VALID")


@main.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--course", default=None, help="The course's name (default: the folder's).")
def init(folder, course):
    """Start a task bank of your own in FOLDER (tasks.yaml, tasks/, reference/)."""
    from .scaffold import ScaffoldError, init_bank

    root = Path(folder)
    try:
        made = init_bank(root, course or root.resolve().name)
    except ScaffoldError as exc:
        fail_usage(str(exc))
    click.echo(f"started a bank in {root}:")
    for path in made:
        click.echo(f"  {path}")
    click.echo(f'next: judge --bank {root} new TASK_ID --step N --title "..."')


@main.command()
@click.argument("task_ids", nargs=-1)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=2,
    show_default=True,
    help="Gradings run at once per task.",
)
@click.pass_context
def validate(ctx, task_ids, fmt, workers):
    """Prove tasks are ready for learners (all tasks when none are named; then also the
    bank-wide rule that each kind of check rejects a known submission of every dodge
    class it declares).

    Exit status: 0 when every task is valid, 1 when one is not, 2 usage error."""
    import json

    from .validate import validate_tasks

    bank = open_bank(ctx, grading=True)
    tasks = [get_task(ctx, t) for t in task_ids] if task_ids else list(bank.tasks.values())
    reports, bank_wide = validate_tasks(
        tasks,
        workers,
        whole_bank=not task_ids,
        each=write_validation_text if fmt == "text" else lambda report: None,
    )
    valid = all(r.verdict == Verdict.ACCEPTED for r in reports + bank_wide)
    if fmt == "json":
        click.echo(
            json.dumps({"valid": valid, "tasks": [r.to_dict() for r in reports + bank_wide]})
        )
    else:
        bad = [r.task for r in reports if r.verdict != Verdict.ACCEPTED]
        click.echo(
            f"{len(reports) - len(bad)} of {len(reports)} tasks valid"
            + (f"; fix: {', '.join(bad)}" if bad else "")
            + (
                ""
                if not bank_wide
                else "; the bank-wide rules hold"
                if bank_wide[0].verdict == Verdict.ACCEPTED
                else "; the bank-wide rules do not hold (the (bank) report above)"
            )
        )
    sys.exit(0 if valid else 1)


def write_validation_text(report) -> None:
    from .writers.text import write_checks

    color = sys.stdout.isatty()
    ok = report.verdict == Verdict.ACCEPTED
    head = (
        ("\033[32mVALID\033[0m" if ok else "\033[31mINVALID\033[0m")
        if color
        else ("VALID" if ok else "INVALID")
    )
    passed = sum(c.status == "passed" for c in report.checks)
    click.echo(
        f"{head}  {report.task}  ({passed} of {len(report.checks)} items, {report.elapsed_s:.1f} s)"
    )
    write_checks(report, sys.stdout, color=color, only_failed=True)
    from .validation_summary import summary_line

    click.echo(summary_line(report))
    sys.stdout.flush()


def entry() -> None:
    """The ``judge`` console script: the commands, then a quick exit.  Once the report
    is out and every atexit cleanup has run, the process leaves without tearing the
    interpreter down: freeing hypothesis's and numpy's objects one by one costs ~40 ms,
    a tenth of what `judge run` adds to the learner's own code."""
    try:
        main()
        code = 0
    except SystemExit as exc:
        if isinstance(exc.code, int) or exc.code is None:
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    atexit._run_exitfuncs()
    os._exit(code)


@main.command()
@click.argument("task_ids", metavar="TASK[,TASK...]")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False),
    help="The zip to write (replaced if there): upload it as the assignment's autograder.",
)
@click.option(
    "--bank",
    "bank_dir",
    type=click.Path(file_okay=False),
    help="The bank the tasks are in (as judge --bank; default: the shipped one).",
)
@click.pass_context
def gradescope(ctx, task_ids, out, bank_dir):
    """Write a Gradescope autograder for these tasks: setup.sh, run_autograder, the judge
    and a bank of only these tasks.  A learner hands in TASK.py or TASK.ipynb per task
    (or one notebook defining several tasks' functions); results.json holds each task's
    tests, the score their sum.

    The zip holds the reference solutions: upload it to Gradescope, never give it out."""
    from .gradescope_bundle import BundleError, build_bundle

    if bank_dir:
        ctx.obj["bank"] = bank_dir
    ids = list(dict.fromkeys(_csv_list(task_ids)))
    if not ids:
        fail_usage("name the tasks to grade: judge gradescope TASK[,TASK...] --out autograder.zip")
    bank = open_bank(ctx, lazy=True)
    tasks = [get_task(ctx, task_id, bank) for task_id in ids]
    try:
        bundle = build_bundle(bank, tasks, Path(out))
    except BundleError as exc:
        fail_usage(str(exc))
    for entry in bundle.tasks:
        click.echo(
            f"  {entry['id']}: {entry['max_score']} points, graded from "
            f"{' or '.join(entry['files'][:2])}"
        )
    click.echo(
        f"wrote {bundle.path}: {len(bundle.tasks)} task(s), {bundle.max_score} points in all"
    )
    click.echo(
        f"next: on Gradescope, a programming assignment worth {bundle.max_score} points "
        f"(base image Ubuntu 24.04: the judge needs Python 3.11 or newer); upload "
        f"{bundle.path.name} as its autograder.  It holds the reference solutions: "
        f"keep it from learners."
    )
