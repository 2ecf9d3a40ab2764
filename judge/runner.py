"""One submission graded against one task: the ``Grading``.

The learner's worker starts first and imports jax while the judge prepares; the
reference answers from its own trusted worker (the ``Oracle``, judge/oracle.py), which
a batch shares between the learners of a task.  The grading runs the checks, each
through ``checks.base.CheckView``, then makes the report: one cause said once
(judge/values_first.py), the instruments' cross-check (judge/tamper.py).  Reports made
without a grading live in judge/standin_reports.py.

This module is also the face older code imports from: ``grade``, ``Grading`` and the
names re-exported below.
"""

from __future__ import annotations

import functools
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, cast

from . import __version__
from .bank import Task
from .checks.base import CheckView, ResultAfterCalls
from .memo import ReferenceMemo
from .not_attempted import NOT_ATTEMPTED, code_tokens, untouched_starter
from .oracle import JudgeFault, Oracle, args_key, script_calls, task_instruments
from .report import CheckResult, Report
from .sandbox import WorkerHandle
from .session import CallOutcome, ScriptRun, Session
from .standin_reports import (
    judge_error_report,
    missing_report,
    no_task_report,
    points_details,
    visibility_details,
)
from .tamper import InstrumentsWatch
from .values_first import (
    VALUE_VERDICTS,
    performance_skipped_while_values_wrong,
    short_evidence_notes,
)
from .verdicts import Status, Verdict
from .worker import wire

__all__ = [
    "Grading",
    "grade",
    "JudgeFault",
    "Oracle",
    "ScriptRun",
    "args_key",
    "script_calls",
    "task_instruments",
    "missing_report",
    "no_task_report",
    "judge_error_report",
    "NOT_ATTEMPTED",
    "code_tokens",
    "untouched_starter",
    "performance_skipped_while_values_wrong",
    "VALUE_VERDICTS",
    "short_evidence_notes",
    "points_details",
    "visibility_details",
    "CallOutcome",
]


class Grading:
    """One submission graded against one task.  ``oracle``: a started reference worker
    to share (a batch, a service); ``worker``: a learner worker already started (a warm
    pool's, ``session.start_learner_worker``), else one is started now; ``isolation``:
    auto, bubblewrap or process (default: $JUDGE_ISOLATION, else auto); ``source_bytes``:
    the submission's bytes where the caller read them already.

    A worker handed in is the grading's from that moment, its only owner: it is closed
    when the run ends, and also here when it cannot serve this task (other limits) or
    the grading cannot be set up.  The caller never closes it."""

    def __init__(
        self,
        task: Task,
        submission: Path,
        *,
        seed: int | None = None,
        examples: int | None = None,
        strict: bool = False,
        oracle: Oracle | None = None,
        display_name: str | None = None,
        worker: WorkerHandle | None = None,
        isolation: str | None = None,
        source_bytes: bytes | None = None,
    ):
        # a worker handed in is ours from here on: if setting up fails, nobody else closes it
        try:
            self.task = task
            self.submission = Path(submission)
            self.seed = task.seed if seed is None else seed
            self.n_examples = examples
            self.strict = strict
            self.learner_session = Session(
                self.submission,
                display_name or self.submission.name,
                task.entrypoint,
                task.limits,
                hidden_paths=task.bank.hidden_paths(),
                instruments=task_instruments(task),
                devices=task.devices,
                isolation=isolation,
                source_bytes=source_bytes,
            )
            if worker is not None and (worker.limits, worker.devices) != (
                self.learner_session.limits,
                self.learner_session.devices,
            ):
                raise ValueError(
                    "the warm worker was started with other limits or devices than this task's"
                )
            self.warm_worker = worker  # started ahead of its one submission, or None
            self.own_oracle = oracle is None
            # --examples draws other inputs than the memo's: a run without it
            memo = (
                ReferenceMemo.for_task(task, self.seed)
                if oracle is None and examples is None
                else None
            )
            self.oracle = oracle or Oracle(task, self.seed, memo=memo)
        except BaseException:
            if worker is not None:
                worker.close()
            raise
        self._expected: dict[int, tuple] = {}  # id(args) -> (args, pending expected value)
        self._largest_expected = 0  # bytes, of the reference's values so far
        self._scripts: dict[str, ScriptRun] = {}
        self._pool: ThreadPoolExecutor | None = None
        self.loaded: CallOutcome | None = None
        self._preparing: Future | None = None
        self.timed_out: CallOutcome | None = None
        self.timed_out_in: str = ""  # the check whose call ran out of time
        self._running: str = ""  # the check making learner calls now
        # the run's budget (see "The run's budget" below)
        self._later: list = []  # the checks still to run after this one
        self._costs: list[float] = []  # charged seconds of each call and measure
        self._clock_stopped: set[str] = set()  # checks the run's clock stopped, not a call
        self.budget_notes: list[str] = []
        self._calls: dict[str, list] = {}  # label -> [(args, CallOutcome)]
        self.instruments = InstrumentsWatch()  # what the learner's code did to them

    # -------------------------------------------------------------- used by checks
    # (checks see only these, through checks.base.GradingView)
    def learner_call(self, args: dict[str, Any], label: str) -> CallOutcome:
        out = self._on_learner(
            lambda: self.learner_session.call(args, label, reply_limit=self._reply_limit(args))
        )
        self._calls.setdefault(label, []).append((args, out))
        self._costs.append(out.charged_s)
        return out

    def learner_calls(self, label: str) -> list[tuple[dict[str, Any], CallOutcome]]:
        return list(self._calls.get(label, []))

    def reference_outcomes(self, calls: list[dict[str, Any]]) -> list[CallOutcome]:
        return self.oracle.outcomes(calls)

    def learner_measure(
        self, kind: str, args: dict[str, Any], options: dict, label: str
    ) -> CallOutcome:
        out = self._on_learner(lambda: self.learner_session.measure(kind, args, options, label))
        self._costs.append(out.charged_s)
        if out.claimed_judge_error:
            return self._confirmed_in_reference(out, kind, args, options)
        return out

    def _confirmed_in_reference(
        self, out: CallOutcome, kind: str, args: dict[str, Any], options: dict
    ) -> CallOutcome:
        """An instrument the learner's worker says failed is the judge's fault only if it
        fails in the reference's worker too, at the same input: a reply from the worker
        that ran the learner's code may be forged (its file can patch how the worker
        answers), and a learner must not choose ``judge_error`` over their verdict."""
        reference = self.reference_measure(kind, args, options)
        if not reference.ok and reference.verdict == Verdict.JUDGE_ERROR:
            return out
        return CallOutcome(
            False,
            verdict=Verdict.RUNTIME_ERROR,
            message=(
                "the judge's measurement failed in the worker that ran your code, though "
                "the same measurement of the reference at this input worked: code of yours "
                "that changes jax or the worker (patching, monkey-patching) is the usual "
                "cause; if yours changes neither, tell your course staff. The worker "
                f"said: {out.message}"
            ),
            traceback=out.traceback,
            fatal=out.fatal,
            charged_s=out.charged_s,
        )

    def reference_measure(self, kind: str, args: dict[str, Any], options: dict) -> CallOutcome:
        return self.oracle.measure(kind, args, options)

    def reference_measure_soon(self, kind: str, args: dict[str, Any], options: dict) -> Future:
        return self._reference_pool().submit(self.oracle.measure, kind, args, options)

    def script_calls(self, name: str) -> list[dict[str, Any]]:
        return script_calls(self.task, name, self.seed)

    def _on_learner(self, request) -> CallOutcome:
        """One request to the learner's worker: a fresh worker if the last one died,
        and none at all once a call ran out of time."""
        if self.timed_out is not None:
            where = (
                f"in the {self.timed_out_in} check {self._above_or_below(self.timed_out_in)}"
                if self.timed_out_in
                else "earlier"
            )
            if self.timed_out.run_out:
                self._clock_stopped.add(self._running)
                return CallOutcome(
                    False,
                    verdict=Verdict.TIME_LIMIT_EXCEEDED,
                    fatal=True,
                    run_out=True,
                    message=f"not run: the whole run's "
                    f"{self.task.limits.run_timeout_s:g} s were spent {where}",
                )
            # code that looped once will loop again: do not spend another call limit on it
            return CallOutcome(
                False,
                verdict=Verdict.TIME_LIMIT_EXCEEDED,
                fatal=True,
                message=f"not run: your code already ran out of time {where}, "
                "and code that looped once would loop again",
            )
        if not self.learner_session.alive:
            reloaded = self.learner_session.restart()
            self.instruments.watch(self.learner_session.worker, reloaded)
            if not reloaded.ok:
                return reloaded
        clock = self.learner_session.clock
        before = clock.spent_s() if clock is not None else 0.0
        # less left of the run than one call may take: this request's limit is the run's
        run_limited = clock is not None and clock.left_s() < self.task.limits.call_timeout_s
        out = request()
        if clock is not None:
            out.charged_s = max(0.0, clock.spent_s() - before)
        if out.verdict == Verdict.TIME_LIMIT_EXCEEDED and out.fatal:
            # the whole run's time ran out, not this call's own limit
            out.run_out = run_limited
            if out.run_out:
                self._clock_stopped.add(self._running)
            self.timed_out, self.timed_out_in = out, self._running
        self.instruments.check(out)
        return out

    def _above_or_below(self, check_id: str) -> str:
        """Where ``check_id`` sits in the report from the check running now: the report
        lists the task's order, which is not the order the checks run in."""
        listed = [c.id for c in self.task.checks]
        if check_id not in listed or self._running not in listed:
            return "earlier"
        return "above" if listed.index(check_id) < listed.index(self._running) else "below"

    def _reply_limit(self, args: dict[str, Any]):
        """For a reply over 1 MB: at most 4x the expected result's size (+1 MB), once
        the reference has it; a learner returning 40 MB arrays for a 16-byte answer
        must not make the judge hold gigabytes."""

        def limit():
            entry = self._expected.get(id(args))
            if entry is None or entry[0] is not args:
                # no reference value for these inputs (a script's call, a stated
                # example): bounded by the largest expected result seen so far
                return (
                    max(_NO_EXPECTED_CAP, 4 * self._largest_expected + (1 << 20)),
                    self._largest_expected,
                    False,
                )
            try:
                value = entry[1].result(timeout=self.task.limits.call_timeout_s)
            except BaseException:  # the reference's failure is reported where it is read
                return None
            expected = value_bytes(value)
            return 4 * expected + (1 << 20), expected, True

        return limit

    def _note_expected(self, values) -> None:
        self._largest_expected = max([self._largest_expected] + [value_bytes(v) for v in values])

    def prepared(self, check_id: str) -> Any:
        """What that check's ``prepare`` made (waiting for it), or None."""
        return self._preparing.result().get(check_id) if self._preparing else None

    def expected_soon(self, args: dict[str, Any]) -> Future:
        """The reference's value, computed while the learner's worker computes its own."""
        future = self._reference_pool().submit(self.oracle.value, args)
        self._expected[id(args)] = (args, future)
        future.add_done_callback(lambda f: f.exception() or self._note_expected([f.result()]))  # type: ignore[func-returns-value]  # a callback: its value is dropped
        return future

    def expected_all(self, calls: list[dict[str, Any]]) -> list["OneOfBatch"]:
        """expected_soon for many inputs at once, in batches (one round trip each)."""
        batch = self._reference_pool().submit(self.oracle.values, calls)
        batch.add_done_callback(lambda f: f.exception() or self._note_expected(f.result()))  # type: ignore[func-returns-value]  # as above
        items = [OneOfBatch(batch, i) for i in range(len(calls))]
        for args, item in zip(calls, items):
            self._expected[id(args)] = (args, item)
        return items

    def _reference_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="reference")
        return self._pool

    @property
    def tampered(self) -> list[str]:
        """What the learner's code changed of the judge's instruments, in words."""
        return self.instruments.found

    def time_left(self) -> float:
        """Seconds the running check may still spend of the learner's own time (machine
        load does not count): what is left of the run's, less what the checks after it
        will need (see "The run's budget")."""
        return self.learner_session.time_left() - self._reserve()

    def learner_script(self, name: str) -> ScriptRun:
        """The learner's run of a scripted call sequence (once, however many checks
        read it)."""
        if name not in self._scripts:
            # what the file compiled while it loaded counts with the script's calls
            run = ScriptRun(
                script_calls(self.task, name, self.seed),
                loaded=list(self.loaded.traces) if self.loaded is not None else [],
            )
            for args in run.calls:
                out = self.learner_call(args, f"script:{name}")
                run.outcomes.append(out)
                if not out.ok:
                    break
            if self.learner_session.alive:
                reported = self._on_learner(lambda: self.learner_session.report(f"script:{name}"))
                run.report = reported.value if reported.ok else {}
            self._scripts[name] = run
        return self._scripts[name]

    def reference_script(self, name: str) -> ScriptRun:
        return self.oracle.script(name)

    # -------------------------------------------------------------- the whole grading
    def run(self) -> Report:
        started = time.monotonic()
        report = Report(
            task=self.task.id,
            submission=str(self.submission),
            seed=self.seed,
            judge_version=__version__,
            strict=self.strict,
            title=self.task.title,
        )
        try:
            # first: it imports jax while the oracle starts; a warm worker has imported
            # it already, and the run's clock starts with its first request, not its spawn
            self.learner_session.start(self.warm_worker)
            if self.own_oracle:
                if not self.learner_session.worker.guards_judge_files:
                    self.oracle.memo = None  # the learner could plant answers for later runs
                self.oracle.start()
            report.checks = self._run_checks()
            specs = {c.id: c for c in self.task.checks}
            for result in report.checks:
                if result.id in specs:
                    result.details.update(points_details(specs[result.id]))
                    result.details.update(visibility_details(self.task, result.id))
        except JudgeFault as fault:
            report.checks.append(
                CheckResult(
                    id="judge",
                    kind="judge",
                    required=True,
                    status=Status.ERROR,
                    message=str(fault),
                    verdict=Verdict.JUDGE_ERROR,
                )
            )
        finally:
            if self._preparing is not None:
                wait([self._preparing])  # no hypothesis run left behind in a thread
            if self._pool is not None:
                self._pool.shutdown(wait=True)
            report.isolation = self.learner_session.isolation
            report.isolation_layers = self.learner_session.isolation_layers
            report.devices = self.learner_session.device_info
            self._expected.clear()
            self.learner_session.stop()
            if self.own_oracle:
                self.oracle.stop()
            self.learner_session.close()
            if self.own_oracle:
                self.oracle.close()
            report.output = self.learner_session.output()
        if self.learner_session.source.suffix == ".ipynb" and self.learner_session.python_text:
            from .notebooks import dropped_notes, report_in_cells

            report_in_cells(
                report, self.learner_session.python_text, self.learner_session.display_name
            )
            report.notes += dropped_notes(self.learner_session.dropped)
        report.notes += self.budget_notes + short_evidence_notes(report.checks)
        report.elapsed_s = time.monotonic() - started
        report.finish()
        if report.verdict != Verdict.ACCEPTED and untouched_starter(
            self.task, self.learner_session.python_text
        ):
            # on the first check the learner reads that is not passed, advisory or not
            said = next((c for c in report.checks if c.status.bad), None)
            if said is not None:
                said.message = f"{NOT_ATTEMPTED} {self.task.id}. " + said.message
        return report

    def _run_checks(self) -> list[CheckResult]:
        # while the workers import jax and the learner's first checks run
        self._preparing = in_background(self._prepare, "prepare")
        self.loaded = self.learner_session.load()
        self.instruments.watch(self.learner_session.worker, self.loaded)
        if not self.loaded.ok:
            load = CheckResult(
                id="load",
                kind="load",
                required=True,
                status=Status.ERROR,
                message=load_message(self.loaded),
                verdict=self.loaded.verdict,
                details={"traceback": self.loaded.traceback} if self.loaded.traceback else {},
            )
            skipped = [
                c.result("skipped", "not run: the submission did not load")
                for c in self.task.checks
            ]
            return [load] + skipped
        results: dict[str, CheckResult | ResultAfterCalls] = {}
        # run in phase order (a phase-0 check reads a fresh worker); reported in the
        # order the task declares them, the order `judge show` lists them
        ran = sorted(self.task.checks, key=lambda c: c.phase)
        for i, check in enumerate(ran):
            if self.learner_session.time_left() <= 0:
                self._clock_stopped.add(check.id)
                results[check.id] = check.result(
                    "error",
                    f"not run: the whole run passed its {self.task.limits.run_timeout_s:g} s limit",
                    verdict=Verdict.TIME_LIMIT_EXCEEDED,
                )
                continue
            self._running, self._later = check.id, ran[i + 1 :]
            results[check.id] = check.run(CheckView(self))
        self._later = []  # every check has made its calls: the rest is theirs
        for check in ran:
            if isinstance(results[check.id], ResultAfterCalls):
                self._running = check.id
                results[check.id] = cast(ResultAfterCalls, results[check.id]).finish()
        self._running = ""
        listed = list(self.task.checks)
        # every ResultAfterCalls was finished above
        checked = self._when_the_clock_ran_out(
            listed, [cast(CheckResult, results[c.id]) for c in listed]
        )
        return (
            performance_skipped_while_values_wrong(listed, checked, self.strict)
            + self.instruments.results()
        )

    # -------------------------------------------------------------- the run's budget
    # One budget (run_timeout_s of the learner's own time) pays for every check.  A check
    # of fixed size (so many examples, one script) makes its calls; the property check
    # stretches to what is left, and stops drawing inputs while the checks after it can
    # still make theirs (``time_left`` leaves them their planned calls at the cost of the
    # learner's calls so far).  Where the clock still ran out, what the checks had seen
    # decides: a wrong value seen once is the verdict, the timeout a note after it.
    RESERVE_FACTOR = 1.25  # a later call may cost a little more than the typical one
    RESERVE_EXTRA_S = 1.0  # and each later check its own fixed costs (a report)

    def typical_call_s(self) -> float:
        """The charged seconds of a typical learner call so far (the median: a first
        call that compiles is not typical), 0 before any."""
        costs = sorted(self._costs)
        return costs[len(costs) // 2] if costs else 0.0

    def _reserve(self) -> float:
        if not self._later:
            return 0.0
        view, unit = CheckView(self), self.typical_call_s()
        return sum(
            self.RESERVE_FACTOR * unit * max(0, check.planned_calls(view)) + self.RESERVE_EXTRA_S
            for check in self._later
        )

    def _when_the_clock_ran_out(self, specs: list, results: list[CheckResult]) -> list[CheckResult]:
        """Checks that the run's clock stopped (not one call passing its own limit), where
        a value check had already seen a wrong value or an exception: that is the
        verdict, and the checks not finished are said to be not run, in a note after it."""
        limit = self.task.limits.run_timeout_s
        stopped = [
            i
            for i, r in enumerate(results)
            if r.status.bad
            and r.verdict == Verdict.TIME_LIMIT_EXCEEDED
            and (r.id in self._clock_stopped or r.details.get("stopped") == "run")
        ]
        if not stopped:
            return results
        # any check's: a performance check's measured program can compute a wrong value too
        seen = next(
            (
                r
                for r in results
                if r.status.bad and r.verdict in VALUE_VERDICTS and r.id not in self._clock_stopped
            ),
            None,
        )
        if seen is None:
            return results  # nothing else decides: the clock's verdict stands
        out = list(results)
        what = "a wrong value" if seen.verdict == Verdict.WRONG_ANSWER else "a runtime error"
        for i in stopped:
            out[i] = specs[i].result(
                Status.SKIPPED,
                f"not run to the end: the run's {limit:g} s "
                f"ran out after the {seen.id} check had seen {what}",
                details={"out_of_time": True},
            )
        names: list[str] | str = [results[i].id for i in stopped]
        names = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        per_call = self.typical_call_s()
        self.budget_notes.append(
            f"the run's {limit:g} s then ran out"
            + (f" (a call of your function took about {per_call:.1f} s)" if per_call >= 0.1 else "")
            + f": the {names} check{'s' if len(stopped) > 1 else ''} did not run to the end; "
            f"{what} seen once is the verdict, whatever they would show"
        )
        return out

    def _prepare(self) -> dict[str, Any]:
        prepared = {}
        for check in self.task.checks:
            view = CheckView(self)
            ready = self.oracle.computed_once(
                check.prepare_key(view), functools.partial(check.prepare, view)
            )
            if ready is not None:
                prepared[check.id] = ready
        return prepared


class OneOfBatch:
    """One value of a batch's future, read like a future of its own."""

    def __init__(self, batch: Future, index: int):
        self.batch, self.index = batch, index

    def result(self, timeout: float | None = None) -> Any:
        return self.batch.result(timeout)[self.index]


def in_background(fn, name: str) -> Future:
    future: Future = Future()

    def run():
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


_NO_EXPECTED_CAP = 16 << 20  # a reply's bytes, where no expected result bounds it


def value_bytes(value) -> int:
    """The bytes of a value tree's arrays (8 for each scalar)."""
    from .values import leaves

    return sum(leaf.array.nbytes if isinstance(leaf, wire.Leaf) else 8 for leaf in leaves(value))


def load_message(out: CallOutcome) -> str:
    detail = out.message.removeprefix("importing the file failed: ")
    if out.verdict == Verdict.INVALID_SUBMISSION:
        return f"the file does not load: {detail}"
    return f"loading the file failed: {detail}"


def grade(task: Task, submission: Path, **kw) -> Report:
    return Grading(task, submission, **kw).run()
