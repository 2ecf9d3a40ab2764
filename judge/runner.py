"""The judge side of one grading: start the workers, run the checks, build the report.

The learner's worker starts first and imports jax while the judge prepares; the
reference runs in a second, trusted worker (the ``Oracle``), which a batch shares
between all the learners of a task: reference outputs are the same for every learner
with the same seed, so each is computed once.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import threading
import time
import tokenize
import traceback
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .bank import Task
from .memo import ReferenceMemo
from .checks.base import CheckView, Later, instruments_of
from .checks.outcome import plural
from .report import CheckResult, Report
from .sandbox import WorkerHandle
from .session import CallOutcome, Session
from .worker import wire
from .verdicts import Status, Verdict


class JudgeFault(BaseException):
    """The reference or the task is at fault, never the learner.  A BaseException so
    that hypothesis does not take it for a failing example and shrink it."""


def task_instruments(task: Task) -> list[dict]:
    """The worker-side halves of the task's check kinds, as the load request carries them."""
    return [dataclasses.asdict(i) for i in instruments_of(task.checks)]


def args_key(args: dict[str, Any]) -> str:
    blobs: list[bytes] = []
    node = wire.encode(list(args.values()), blobs)
    h = hashlib.sha256(repr(node).encode())
    for b in blobs:
        h.update(b)
    return h.hexdigest()


@dataclass
class ScriptRun:
    calls: list[dict[str, Any]]
    outcomes: list[CallOutcome] = field(default_factory=list)
    report: dict = field(default_factory=dict)
    loaded: list = field(default_factory=list)   # trace events of the file's load (import time)

    @property
    def failure(self) -> CallOutcome | None:
        return next((o for o in self.outcomes if not o.ok), None)

    def syncs(self) -> list[dict]:
        return [dict(s, call=i + 1) for i, o in enumerate(self.outcomes) for s in o.syncs]


class Oracle:
    """The reference solution of one task, in a fresh trusted worker; thread-safe.
    With a ``memo`` (judge.memo), what earlier runs computed is answered from it, and the
    worker starts only for what the memo lacks."""

    def __init__(self, task: Task, seed: int, *, x64: bool = False,
                 memo: ReferenceMemo | None = None):
        self.task, self.seed = task, seed
        self.session = Session(task.reference_path, task.reference_path.name, task.entrypoint,
                               task.limits, trusted=True, instruments=task_instruments(task),
                               devices=task.devices, x64=x64)
        self._lock = threading.RLock()
        self._outcomes: dict[str, CallOutcome] = {}    # its values, traces and syncs
        self._measured: dict[tuple, CallOutcome] = {}
        self._scripts: dict[str, ScriptRun] = {}
        self._shared: dict[Any, Future] = {}
        self._shared_lock = threading.Lock()     # not _lock: held while the worker starts
        self._loaded = False
        self._load_traces: list = []       # what the reference traced while its file loaded
        self._fault: JudgeFault | None = None
        self.memo = memo
        self._recalled: dict[Any, tuple] = {}     # asked of the memo before the worker started
        self._kept: dict | None = None
        self._changed = False        # answers the memo lacked were computed

    def _recall(self) -> None:
        """What the memo holds, taken in."""
        self._kept = kept = self.memo.load() if self.memo is not None else None
        if not kept:
            return
        self._outcomes.update(kept.get("outcomes", {}))
        self._measured.update(kept.get("measured", {}))
        self._scripts.update(kept.get("scripts", {}))
        for key, value in kept.get("shared", {}).items():
            self._shared[key] = future = Future()
            future.set_result(value)

    def _unasked(self) -> list:
        kept = self._kept or {}
        return [k for k in [*kept.get("outcomes", {}), *kept.get("measured", {})]
                if k not in self._recalled]

    def start(self) -> None:
        """Start the worker, then load the reference and run its scripts in the
        background, while the learner's worker starts on the other core.  With a memo
        to answer from, not yet: on the first question the memo cannot answer."""
        self._recall()
        if self._kept:
            return
        self.session.start()
        threading.Thread(target=self._warm_up, name="oracle-warm-up", daemon=True).start()

    def _warm_up(self) -> None:
        try:
            with self._lock:
                self._ensure()
        except JudgeFault:
            pass                               # kept in self._fault, raised to the next caller
        except RuntimeError:
            if self.session.alive:
                raise
            # closed while it warmed up (a service stopping, a reference replaced): nothing to do

    def _ensure(self) -> None:
        if self._fault is not None:
            raise self._fault
        if not self._loaded:
            try:
                if self.session.worker is None:      # started late: the memo fell short
                    self.session.start()
                out = self.session.load()
                if not out.ok:
                    raise JudgeFault(f"the reference solution does not load: {out.message}")
                self._load_traces = list(out.traces)
                # measured before any other call; only the scripts a check reads the runs
                # of (another script's shapes would already be compiled for these)
                read = {name for check in self.task.checks for name in check.scripts_run()}
                for name in self.task.scripts:
                    if name in read:
                        self._changed |= name not in self._scripts
                        self._scripts[name] = self._run_script(name)
                self._replay_recalled()
            except JudgeFault as fault:
                self._fault = fault
                raise
            self._loaded = True

    def _run_script(self, name: str) -> ScriptRun:
        run = ScriptRun(script_calls(self.task, name, self.seed),
                        loaded=list(self._load_traces))
        for args in run.calls:
            out = self.session.call(args, f"script:{name}")
            if not out.ok:
                raise JudgeFault(f"the reference fails on script '{name}': {out.message}")
            run.outcomes.append(out)
        run.report = self.session.report(f"script:{name}").value or {}
        return run

    def script(self, name: str) -> ScriptRun:
        with self._lock:
            if name not in self._scripts:
                self._ensure()
            return self._scripts[name]

    def value(self, args: dict[str, Any]) -> Any:
        return self.values([args])[0]

    def values(self, calls: list[dict[str, Any]], chunk: int = 32) -> list[Any]:
        """The reference's values for many inputs, a few dozen per round trip."""
        return [out.value for out in self.outcomes(calls, chunk)]

    def outcomes(self, calls: list[dict[str, Any]], chunk: int = 32) -> list[CallOutcome]:
        """The reference's outcomes for many inputs (values, and the traces and syncs of
        the first time each input was called), a few dozen per round trip.  Inputs that
        are equal share one outcome object."""
        keys = [args_key(args) for args in calls]
        with self._lock:
            wanted = {k: args for k, args in zip(keys, calls)}
            missing = [(k, args) for k, args in wanted.items() if k not in self._outcomes]
            self._note_recalled([("call", k, args) for k, args in wanted.items()
                                 if k in self._outcomes])
            if missing:
                self._ensure()
            self._compute(missing, chunk)
            return [self._outcomes[k] for k in keys]

    def _compute(self, missing: list[tuple[str, dict]], chunk: int = 32) -> None:
        for i in range(0, len(missing), chunk):
            part = missing[i:i + chunk]
            outs = self.session.call_many([args for _, args in part], "reference", probe=True)
            for (key, _), out in zip(part, outs):
                if not out.ok:
                    raise JudgeFault(f"the reference fails on these inputs: {out.message}")
                self._changed |= key not in self._outcomes
                self._outcomes.setdefault(key, out)

    def measure(self, kind: str, args: dict[str, Any], options: dict) -> CallOutcome:
        """A check kind's instrument on the reference at ``args`` (memoised)."""
        key = (kind, json.dumps(options, sort_keys=True), args_key(args))
        with self._lock:
            if key in self._measured:
                self._note_recalled([("measure", key, (kind, args, options))])
            else:
                self._ensure()
                self._measure(key, kind, args, options)
            return self._measured[key]

    def _measure(self, key, kind: str, args: dict[str, Any], options: dict) -> None:
        out = self.session.measure(kind, args, options, f"measure:{kind}")
        if not out.ok:
            raise JudgeFault(f"the reference cannot be measured by the {kind} check: "
                             f"{out.message}")
        self._changed |= key not in self._measured
        self._measured.setdefault(key, out)

    def _note_recalled(self, asked: list[tuple]) -> None:
        """Questions the memo answered before the worker started, in the order they were
        asked: a worker started later asks them again first, so that what it counts
        afterwards (a trace, a compile) is counted from the state it would have had."""
        if not self._loaded:
            for entry in asked:
                if entry[1] not in self._recalled:
                    self._recalled[entry[1]] = entry

    def _replay_recalled(self) -> None:
        # what the memo holds but was not asked yet: the worker computes it when it is,
        # in the order a run without a memo would have
        for key in self._unasked():
            self._outcomes.pop(key, None)
            self._measured.pop(key, None)
        batch: list[tuple[str, dict]] = []
        for what, key, asked in self._recalled.values():
            if what == "call":
                batch.append((key, asked))
                continue
            self._compute(batch)
            batch = []
            self._measure(key, *asked)
        self._compute(batch)
        self._recalled.clear()

    def shared(self, key, make) -> Any:
        """``make()``, once for every grading that shares this oracle (a batch): the
        inputs drawn for a task and seed are the same for every learner."""
        with self._shared_lock:
            future = self._shared.get(key)
            mine = future is None
            if mine:
                future = self._shared[key] = Future()
        if mine:
            try:
                future.set_result(make())
                self._changed = True
            except BaseException as exc:
                with self._shared_lock:
                    del self._shared[key]    # the next grading tries again
                future.set_exception(exc)
        return future.result()

    def stop(self) -> None:
        self.session.stop()

    def close(self) -> None:
        self.session.close()
        self._remember()

    def _remember(self) -> None:
        """What this run added to the memo, kept for the next (a faulty reference keeps
        nothing)."""
        if self.memo is None or self._fault is not None or not self._changed:
            return
        with self._lock, self._shared_lock:
            kept = self._kept or {}
            shared = {key: future.result() for key, future in self._shared.items()
                      if future.done() and future.exception() is None}
            data = {"outcomes": {**kept.get("outcomes", {}), **self._outcomes},
                    "measured": {**kept.get("measured", {}), **self._measured},
                    "scripts": dict(self._scripts), "shared": shared}
            self._changed = False
        self.memo.save(data)


def script_calls(task: Task, name: str, seed: int) -> list[dict[str, Any]]:
    from .literals import materialize

    rng = np.random.default_rng([seed, 7])
    return [materialize(args, rng) for args in task.scripts[name]]


class Grading:
    """One submission graded against one task.  ``oracle``: a started reference worker
    to share (a batch, a service); ``worker``: a learner worker already started (a warm
    pool's, ``session.start_learner_worker``), else one is started now; ``isolation``:
    auto, bubblewrap or process (default: $JUDGE_ISOLATION, else auto); ``source_bytes``:
    the submission's bytes where the caller read them already.

    A worker handed in is the grading's from that moment, its only owner: it is closed
    when the run ends, and also here when it cannot serve this task (other limits) or
    the grading cannot be set up.  The caller never closes it."""

    def __init__(self, task: Task, submission: Path, *, seed: int | None = None,
                 examples: int | None = None, strict: bool = False,
                 oracle: Oracle | None = None, display_name: str | None = None,
                 worker: WorkerHandle | None = None, isolation: str | None = None,
                 source_bytes: bytes | None = None):
        try:
            self._set_up(task, submission, seed, examples, strict, oracle, display_name,
                         worker, isolation, source_bytes)
        except BaseException:
            if worker is not None:
                worker.close()           # handed to us: nobody else will
            raise

    def _set_up(self, task, submission, seed, examples, strict, oracle, display_name,
                worker, isolation, source_bytes) -> None:
        self.task = task
        self.submission = Path(submission)
        self.seed = task.seed if seed is None else seed
        self.n_examples = examples
        self.strict = strict
        self.learner = Session(self.submission, display_name or self.submission.name,
                               task.entrypoint, task.limits,
                               hidden_paths=task.bank.hidden_paths(),
                               instruments=task_instruments(task), devices=task.devices,
                               isolation=isolation, source_bytes=source_bytes)
        if worker is not None and (worker.limits, worker.devices) != \
                (self.learner.limits, self.learner.devices):
            raise ValueError("the warm worker was started with other limits or devices than "
                             "this task's")
        self.warm_worker = worker       # started ahead of its one submission, or None
        self.own_oracle = oracle is None
        # --examples draws other inputs than the memo's: a run without it
        memo = ReferenceMemo.for_task(task, self.seed) if oracle is None and examples is None else None
        self.oracle = oracle or Oracle(task, self.seed, memo=memo)
        self._expected: dict[int, tuple] = {}     # id(args) -> (args, pending expected value)
        self._largest_expected = 0                # bytes, of the reference's values so far
        self._scripts: dict[str, ScriptRun] = {}
        self._pool: ThreadPoolExecutor | None = None
        self.loaded: CallOutcome | None = None
        self._preparing: Future | None = None
        self.timed_out: CallOutcome | None = None
        self.timed_out_in: str = ""              # the check whose call ran out of time
        self._running: str = ""                  # the check making learner calls now
        # the run's budget (see "The run's budget" below)
        self._later: list = []                   # the checks still to run after this one
        self._costs: list[float] = []            # charged seconds of each call and measure
        self._clock_stopped: set[str] = set()    # checks the run's clock stopped, not a call
        self.budget_notes: list[str] = []
        self._calls: dict[str, list] = {}            # label -> [(args, CallOutcome)]
        self.tampered: list[str] = []     # what the learner's code did to the instruments
        self._compile_log = None         # the worker's CompileLog (compile_log.py)
        self._reported_compiles = 0      # compile events in the learner's replies so far

    # -------------------------------------------------------------- used by checks
    # (checks see only these, through checks.base.GradingView)
    def learner_call(self, args: dict[str, Any], label: str) -> CallOutcome:
        out = self._on_learner(lambda: self.learner.call(args, label,
                                                         reply_limit=self._reply_limit(args)))
        self._calls.setdefault(label, []).append((args, out))
        self._costs.append(out.charged_s)
        return out

    def learner_calls(self, label: str) -> list[tuple[dict[str, Any], CallOutcome]]:
        return list(self._calls.get(label, []))

    def reference_outcomes(self, calls: list[dict[str, Any]]) -> list[CallOutcome]:
        return self.oracle.outcomes(calls)

    def learner_measure(self, kind: str, args: dict[str, Any], options: dict,
                        label: str) -> CallOutcome:
        out = self._on_learner(lambda: self.learner.measure(kind, args, options, label))
        self._costs.append(out.charged_s)
        return out

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
            where = f"in the {self.timed_out_in} check {self._above_or_below(self.timed_out_in)}" \
                if self.timed_out_in else "earlier"
            if self.timed_out.run_out:
                self._clock_stopped.add(self._running)
                return CallOutcome(False, verdict=Verdict.TIME_LIMIT_EXCEEDED, fatal=True,
                                   run_out=True, message=f"not run: the whole run's "
                                   f"{self.task.limits.run_timeout_s:g} s were spent {where}")
            # code that looped once will loop again: do not spend another call limit on it
            return CallOutcome(False, verdict=Verdict.TIME_LIMIT_EXCEEDED, fatal=True,
                               message=f"not run: your code already ran out of time {where}, "
                                       "and code that looped once would loop again")
        if not self.learner.alive:
            reloaded = self.learner.restart()
            self._watch_compiles(reloaded)
            if not reloaded.ok:
                return reloaded
        clock = self.learner.clock
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
        self._check_instruments(out)
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
                return max(_NO_EXPECTED_CAP, 4 * self._largest_expected + (1 << 20)), \
                    self._largest_expected, False
            try:
                value = entry[1].result(timeout=self.task.limits.call_timeout_s)
            except BaseException:  # the reference's failure is reported where it is read
                return None
            expected = value_bytes(value)
            return 4 * expected + (1 << 20), expected, True
        return limit

    def _note_expected(self, values) -> None:
        self._largest_expected = max([self._largest_expected] + [value_bytes(v) for v in values])

    def _watch_compiles(self, loaded: CallOutcome) -> None:
        """Count XLA's compiles in the learner's worker from outside it (see compile_log):
        the worker's log, watched since before the learner's file was sent; what XLA
        compiled until the load's reply is the baseline."""
        worker = self.learner.worker
        self._compile_log = log = worker.compile_log if worker is not None else None
        if log is not None:
            log.at_start = log.count()
        self._reported_compiles = 0      # a fresh worker: its own log, its own records
        self._check_instruments(loaded)

    def _check_instruments(self, out: CallOutcome) -> None:
        """What the worker found changed of its instruments, and XLA's count of compiles
        against the probe's: more compiles than the probe saw means it was blinded."""
        found = list(out.tampered)
        log = self._compile_log
        self._reported_compiles += out.compiles_reported
        if log is not None:
            # whatever the worker's reply says or leaves out: a log the learner moved,
            # removed or flooded is tampering, never a cross-check quietly skipped
            compiled = log.count()
            log.prune()
            if log.problem:
                found.append(log.problem)
            elif not any(t.startswith("XLA compiled") for t in self.tampered):
                during = compiled - log.at_start
                # a reply without the probe's total (its reader replaced) is matched by
                # its records alone
                if out.compiles_seen is not None and compiled > out.compiles_seen:
                    found.append(f"XLA compiled {plural(compiled, 'program')} in your worker "
                                 f"where the judge's probe saw {out.compiles_seen} (the probe "
                                 f"was blinded)")
                elif during > self._reported_compiles:
                    # the probe's own total can be rewritten as easily as its records: the
                    # records the checks read are what XLA's count must match
                    found.append(f"XLA compiled {plural(during, 'program')} in your worker "
                                 f"during its calls, where the probe's records of them show "
                                 f"{self._reported_compiles} (the records were rewritten)")
        self.tampered += [t for t in found if t not in self.tampered]

    def prepared(self, check_id: str) -> Any:
        """What that check's ``prepare`` made (waiting for it), or None."""
        return self._preparing.result().get(check_id) if self._preparing else None

    def expected_soon(self, args: dict[str, Any]) -> Future:
        """The reference's value, computed while the learner's worker computes its own."""
        future = self._reference_pool().submit(self.oracle.value, args)
        self._expected[id(args)] = (args, future)
        future.add_done_callback(lambda f: f.exception() or self._note_expected([f.result()]))
        return future

    def expected_all(self, calls: list[dict[str, Any]]) -> list["_Item"]:
        """expected_soon for many inputs at once, in batches (one round trip each)."""
        batch = self._reference_pool().submit(self.oracle.values, calls)
        batch.add_done_callback(lambda f: f.exception() or self._note_expected(f.result()))
        items = [_Item(batch, i) for i in range(len(calls))]
        for args, item in zip(calls, items):
            self._expected[id(args)] = (args, item)
        return items

    def _reference_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="reference")
        return self._pool

    def time_left(self) -> float:
        """Seconds the running check may still spend of the learner's own time (machine
        load does not count): what is left of the run's, less what the checks after it
        will need (see "The run's budget")."""
        return self.learner.time_left() - self._reserve()

    def learner_script(self, name: str) -> ScriptRun:
        """The learner's run of a scripted call sequence (once, however many checks
        read it)."""
        if name not in self._scripts:
            # what the file compiled while it loaded counts with the script's calls
            run = ScriptRun(script_calls(self.task, name, self.seed),
                            loaded=list(self.loaded.traces) if self.loaded is not None else [])
            for args in run.calls:
                out = self.learner_call(args, f"script:{name}")
                run.outcomes.append(out)
                if not out.ok:
                    break
            if self.learner.alive:
                reported = self._on_learner(lambda: self.learner.report(f"script:{name}"))
                run.report = reported.value if reported.ok else {}
            self._scripts[name] = run
        return self._scripts[name]

    def reference_script(self, name: str) -> ScriptRun:
        return self.oracle.script(name)


    # -------------------------------------------------------------- the whole grading
    def run(self) -> Report:
        started = time.monotonic()
        report = Report(task=self.task.id, submission=str(self.submission), seed=self.seed,
                        judge_version=__version__, strict=self.strict, title=self.task.title)
        try:
            # first: it imports jax while the oracle starts; a warm worker has imported
            # it already, and the run's clock starts with its first request, not its spawn
            self.learner.start(self.warm_worker)
            if self.own_oracle:
                if not self.learner.worker.guards_judge_files:
                    self.oracle.memo = None     # the learner could plant answers for later runs
                self.oracle.start()
            report.checks = self._run_checks()
            specs = {c.id: c for c in self.task.checks}
            for result in report.checks:
                if result.id in specs:
                    result.details.update(points_details(specs[result.id]))
                    result.details.update(visibility_details(self.task, result.id))
        except JudgeFault as fault:
            report.checks.append(CheckResult(id="judge", kind="judge", required=True,
                                             status="error", message=str(fault),
                                             verdict=Verdict.JUDGE_ERROR))
        finally:
            if self._preparing is not None:
                wait([self._preparing])    # no hypothesis run left behind in a thread
            if self._pool is not None:
                self._pool.shutdown(wait=True)
            report.isolation = self.learner.isolation
            report.isolation_layers = self.learner.isolation_layers
            report.devices = self.learner.device_info
            self._expected.clear()
            self.learner.stop()
            if self.own_oracle:
                self.oracle.stop()
            self.learner.close()
            if self.own_oracle:
                self.oracle.close()
            report.output = self.learner.output()
        if self.learner.source.suffix == ".ipynb" and self.learner.python_text:
            from .notebooks import dropped_notes, report_in_cells

            report_in_cells(report, self.learner.python_text, self.learner.display_name)
            report.notes += dropped_notes(self.learner.dropped)
        report.notes += self.budget_notes + short_evidence_notes(report.checks)
        report.elapsed_s = time.monotonic() - started
        report.finish()
        if report.verdict != Verdict.ACCEPTED and untouched_starter(self.task,
                                                                    self.learner.python_text):
            # on the first check the learner reads that is not passed, advisory or not
            said = next((c for c in report.checks if c.status.bad), None)
            if said is not None:
                said.message = (f"{NOT_ATTEMPTED} {self.task.id}. "
                                + said.message)
        return report

    def _run_checks(self) -> list[CheckResult]:
        # while the workers import jax and the learner's first checks run
        self._preparing = in_background(self._prepare, "prepare")
        self.loaded = self.learner.load()
        self._watch_compiles(self.loaded)
        if not self.loaded.ok:
            load = CheckResult(id="load", kind="load", required=True, status="error",
                               message=load_message(self.loaded),
                               verdict=self.loaded.verdict,
                               details={"traceback": self.loaded.traceback} if self.loaded.traceback else {})
            skipped = [c.result("skipped", "not run: the submission did not load")
                       for c in self.task.checks]
            return [load] + skipped
        results: dict[str, CheckResult | Later] = {}
        # run in phase order (a phase-0 check reads a fresh worker); reported in the
        # order the task declares them, the order `judge show` lists them
        ran = sorted(self.task.checks, key=lambda c: c.phase)
        for i, check in enumerate(ran):
            if self.learner.time_left() <= 0:
                self._clock_stopped.add(check.id)
                results[check.id] = check.result(
                    "error", f"not run: the whole run passed its {self.task.limits.run_timeout_s:g} s limit",
                    verdict=Verdict.TIME_LIMIT_EXCEEDED)
                continue
            self._running, self._later = check.id, ran[i + 1:]
            results[check.id] = check.run(CheckView(self))
        self._later = []           # every check has made its calls: the rest is theirs
        for check in ran:
            if isinstance(results[check.id], Later):
                self._running = check.id
                results[check.id] = results[check.id].finish()
        self._running = ""
        listed = list(self.task.checks)
        checked = self._when_the_clock_ran_out(listed, [results[c.id] for c in listed])
        return one_cause_said_once(listed, checked, self.strict) + self._instruments_result()

    # -------------------------------------------------------------- the run's budget
    # One budget (run_timeout_s of the learner's own time) pays for every check.  A check
    # of fixed size (so many examples, one script) makes its calls; the property check
    # stretches to what is left, and stops drawing inputs while the checks after it can
    # still make theirs (``time_left`` leaves them their planned calls at the cost of the
    # learner's calls so far).  Where the clock still ran out, what the checks had seen
    # decides: a wrong value seen once is the verdict, the timeout a note after it.
    RESERVE_FACTOR = 1.25          # a later call may cost a little more than the typical one
    RESERVE_EXTRA_S = 1.0          # and each later check its own fixed costs (a report)

    def typical_call_s(self) -> float:
        """The charged seconds of a typical learner call so far (the median: a first
        call that compiles is not typical), 0 before any."""
        costs = sorted(self._costs)
        return costs[len(costs) // 2] if costs else 0.0

    def _reserve(self) -> float:
        if not self._later:
            return 0.0
        view, unit = CheckView(self), self.typical_call_s()
        return sum(self.RESERVE_FACTOR * unit * max(0, check.planned_calls(view))
                   + self.RESERVE_EXTRA_S for check in self._later)

    def _when_the_clock_ran_out(self, specs: list, results: list[CheckResult]) -> list[CheckResult]:
        """Checks that the run's clock stopped (not one call passing its own limit), where
        a value check had already seen a wrong value or an exception: that is the
        verdict, and the checks not finished are said to be not run, in a note after it."""
        limit = self.task.limits.run_timeout_s
        stopped = [i for i, r in enumerate(results)
                   if r.status.bad and r.verdict == Verdict.TIME_LIMIT_EXCEEDED
                   and (r.id in self._clock_stopped or r.details.get("stopped") == "run")]
        if not stopped:
            return results
        # any check's: a performance check's measured program can compute a wrong value too
        seen = next((r for r in results if r.status.bad and r.verdict in VALUE_VERDICTS
                     and r.id not in self._clock_stopped), None)
        if seen is None:
            return results            # nothing else decides: the clock's verdict stands
        out = list(results)
        what = "a wrong value" if seen.verdict == Verdict.WRONG_ANSWER else "a runtime error"
        for i in stopped:
            out[i] = specs[i].result(Status.SKIPPED, f"not run to the end: the run's {limit:g} s "
                                     f"ran out after the {seen.id} check had seen {what}",
                                     details={"out_of_time": True})
        names = [results[i].id for i in stopped]
        names = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        per_call = self.typical_call_s()
        self.budget_notes.append(
            f"the run's {limit:g} s then ran out"
            + (f" (a call of your function took about {per_call:.1f} s)" if per_call >= 0.1 else "")
            + f": the {names} check{'s' if len(stopped) > 1 else ''} did not run to the end; "
              f"{what} seen once is the verdict, whatever they would show")
        return out

    def _instruments_result(self) -> list[CheckResult]:
        if not self.tampered:
            return []
        return [CheckResult(
            id="instruments", kind="instruments", required=True, status="error",
            message="your code tampered with the judge's instruments: " + "; ".join(self.tampered[:4])
                    + ". The performance checks cannot trust what they measured, so the "
                      "submission is graded as a runtime error; remove the code that touches "
                      "the judge's probe, jax's monitoring listeners or the patched functions",
            details={"changes": self.tampered}, verdict=Verdict.RUNTIME_ERROR)]

    def _prepare(self) -> dict[str, Any]:
        prepared = {}
        for check in self.task.checks:
            ready = self.oracle.shared(("prepare", check.id, self.seed, self.n_examples),
                                       functools.partial(check.prepare, CheckView(self)))
            if ready is not None:
                prepared[check.id] = ready
        return prepared


# A performance check judges right values only: when its calls gave a wrong value, or
# raised, and a value check already says so with the input that shows it, it says no more.
VALUE_VERDICTS = (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR)


def one_cause_said_once(specs: list, results: list[CheckResult],
                        strict: bool = False) -> list[CheckResult]:
    """One cause, said once: where the values are wrong (or the code raised) and a value
    check says so with the input that shows it, a performance check is ``skipped`` with
    that reason, whatever its kind: one that ran into the same wrong value (or exception)
    has no counterexample or traceback of its own, and one whose figures were fine is
    not counted, since fast wrong code earns nothing.  One state for every kind, so every
    writer shows the same (contract change log, 2026-12-02)."""
    out = list(results)
    for i, (spec, result) in enumerate(zip(specs, results)):
        if not spec.performance or result.status == Status.SKIPPED:
            continue
        ran_into = result.status.bad and result.verdict in VALUE_VERDICTS
        if not (ran_into or result.status == Status.PASSED):
            continue                 # measured and found wanting: that stands
        # a counted value check only: an advisory one decides neither verdict nor points
        cause = next((j for j, (s, r) in enumerate(zip(specs, results))
                      if not s.performance and r.counts(strict) and r.verdict in VALUE_VERDICTS
                      and (r.verdict == result.verdict or not ran_into)), None)
        if cause is None:
            continue                 # its scripted calls are the only evidence: keep it
        where = "above" if cause < i else "below"
        verdict = results[cause].verdict
        what = "the values are wrong" if verdict == Verdict.WRONG_ANSWER else "your code raised"
        shows = f"the {specs[cause].id} check {where} shows where"
        if ran_into:
            message = f"{what}, so its performance is not measured: {shows}"
        else:
            message = f"{what}, so its performance is not counted (fast wrong code earns nothing): {shows}"
        out[i] = spec.result(Status.SKIPPED, message, details={"values_wrong": True})
    return out


def short_evidence_notes(results: list[CheckResult]) -> list[str]:
    """What a check stopped short by the run's budget said about how much it checked
    (its ``details["short"]``): said above the checks, so no view hides that the verdict
    rests on less evidence than a full run's."""
    return [f"the {r.id} check {r.details['short']}" for r in results
            if r.status == Status.PASSED and isinstance(r.details.get("short"), str)]


def missing_report(task: Task, submission: str, why: str, seed: int | None,
                   strict: bool) -> Report:
    """The report of a submission that is not there (a batch's missing cell), so that
    every view (a Gradescope results.json above all: without one Gradescope shows a
    broken autograder) says why, and scores it 0 of the task's points."""
    report = Report(task=task.id, submission=submission,
                    seed=task.seed if seed is None else seed, judge_version=__version__,
                    strict=strict, title=task.title)
    report.checks.append(CheckResult(id="load", kind="load", required=True, status=Status.ERROR,
                                     message=f"nothing to grade: {why}",
                                     verdict=Verdict.INVALID_SUBMISSION))
    for spec in task.checks:
        skipped = spec.result(Status.SKIPPED, "not run: no submission")
        skipped.details.update(points_details(spec))
        skipped.details.update(visibility_details(task, spec.id))
        report.checks.append(skipped)
    return report.finish()


def no_task_report(task_id: str, submission: str, why: str, seed: int | None,
                   strict: bool) -> Report:
    """The report when the task asked for is not in the bank: the grader's set-up is at
    fault, never the learner, and a platform's results file still says so."""
    report = Report(task=task_id, submission=submission, seed=0 if seed is None else seed,
                    judge_version=__version__, strict=strict, title=task_id)
    report.checks.append(CheckResult(id="task", kind="judge", required=True, status=Status.ERROR,
                                     message=f"this grader is set up for a task the bank does "
                                             f"not hold (not your fault): {why}",
                                     verdict=Verdict.JUDGE_ERROR))
    return report.finish()


# how a report says its submission is still the starter (the class report reads it too)
NOT_ATTEMPTED = "not attempted yet: this is still the starter of"


def untouched_starter(task: Task, text: str | None) -> bool:
    """Is the submission still the task's starter (comments and blank lines aside)?
    ``text``: its Python as the session read it before it ran (None: nothing was read,
    a FIFO, a link), never the file read again, which the learner's code may have
    changed since."""
    if text is None:
        return False
    try:
        return code_tokens(text) == code_tokens(task.starter_path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, tokenize.TokenError):
        return False


def code_tokens(text: str) -> list[tuple[int, str]]:
    """Python's tokens, comments and layout aside (what makes two files the same code)."""
    ignored = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
               tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER)
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in ignored]


def points_details(spec) -> dict:
    """What a check is worth, recorded in its result so every view scores it alike."""
    from .scoring import number

    return {"points": number(spec.points), **({"performance": True} if spec.performance else {})}


def visibility_details(task: Task, check_id: str) -> dict:
    """Who sees the check's result on Gradescope, and when (tasks.yaml `visibility`),
    recorded like its points; said only where it is not the default, visible."""
    shown = task.visibility.get(check_id, "visible")
    return {} if shown == "visible" else {"visibility": shown}


class _Item:
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


_NO_EXPECTED_CAP = 16 << 20   # a reply's bytes, where no expected result bounds it


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


def judge_error_report(task: Task, submission, seed: int | None, strict: bool,
                       exc: BaseException) -> Report:
    """The report of a grading that the judge itself broke: never the learner's fault,
    never a traceback in their face."""
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    report = Report(task=task.id, submission=str(submission),
                    seed=task.seed if seed is None else seed, judge_version=__version__,
                    strict=strict, title=task.title)
    report.checks.append(CheckResult(id="judge", kind="judge", required=True, status=Status.ERROR,
                                     message=f"the judge failed (not your fault): {detail}",
                                     verdict=Verdict.JUDGE_ERROR))
    return report.finish()
