"""The reference solution of one task, in its own trusted worker: the ``Oracle``.

A batch (or a service) shares one between all the learners of a task: reference
outputs are the same for every learner with the same seed, so each is computed once;
with a memo (judge/memo.py) they are computed once across runs too.  It never sees a
learner's code; ``Grading`` (judge/runner.py) asks it for what a check compares with.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from concurrent.futures import Future
from typing import Any

import numpy as np

from .bank import Task
from .checks.base import instruments_of
from .memo import ReferenceMemo
from .session import CallOutcome, ScriptRun, Session
from .worker import wire


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


class Oracle:
    """The reference solution of one task, in a fresh trusted worker; thread-safe.
    With a ``memo`` (judge.memo), what earlier runs computed is answered from it, and the
    worker starts only for what the memo lacks."""

    def __init__(
        self, task: Task, seed: int, *, x64: bool = False, memo: ReferenceMemo | None = None
    ):
        self.task, self.seed = task, seed
        self.session = Session(
            task.reference_path,
            task.reference_path.name,
            task.entrypoint,
            task.limits,
            trusted=True,
            instruments=task_instruments(task),
            devices=task.devices,
            x64=x64,
        )
        self._lock = threading.RLock()
        self._outcomes: dict[str, CallOutcome] = {}  # its values, traces and syncs
        self._measured: dict[tuple, CallOutcome] = {}
        self._scripts: dict[str, ScriptRun] = {}
        self._shared: dict[Any, Future] = {}
        self._shared_lock = threading.Lock()  # not _lock: held while the worker starts
        self._loaded = False
        self._load_traces: list = []  # what the reference traced while its file loaded
        self._fault: JudgeFault | None = None
        self.memo = memo
        self._recalled: dict[Any, tuple] = {}  # asked of the memo before the worker started
        self._kept: dict | None = None
        self._changed = False  # answers the memo lacked were computed

    def _recall(self) -> None:
        """What the memo holds, taken in."""
        self._kept = kept = self.memo.load() if self.memo is not None else None
        if not kept:
            return
        self._outcomes.update(kept.get("outcomes", {}))
        self._measured.update(kept.get("measured", {}))
        self._scripts.update(kept.get("scripts", {}))
        future: Future[Any]
        for key, value in kept.get("shared", {}).items():
            self._shared[key] = future = Future()
            future.set_result(value)

    def _unasked(self) -> list:
        kept = self._kept or {}
        return [
            k
            for k in [*kept.get("outcomes", {}), *kept.get("measured", {})]
            if k not in self._recalled
        ]

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
            pass  # kept in self._fault, raised to the next caller
        except RuntimeError:
            if self.session.alive:
                raise
            # closed while it warmed up (a service stopping, a reference replaced): nothing to do

    def _ensure(self) -> None:
        if self._fault is not None:
            raise self._fault
        if not self._loaded:
            try:
                if self.session.worker is None:  # started late: the memo fell short
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
        run = ScriptRun(script_calls(self.task, name, self.seed), loaded=list(self._load_traces))
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
            self._note_recalled(
                [("call", k, args) for k, args in wanted.items() if k in self._outcomes]
            )
            if missing:
                self._ensure()
            self._compute(missing, chunk)
            return [self._outcomes[k] for k in keys]

    def _compute(self, missing: list[tuple[str, dict]], chunk: int = 32) -> None:
        for i in range(0, len(missing), chunk):
            part = missing[i : i + chunk]
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
            raise JudgeFault(f"the reference cannot be measured by the {kind} check: {out.message}")
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

    def computed_once(self, key, make) -> Any:
        """``make()``, once for every grading that shares this oracle (a batch): the
        inputs drawn for a task and seed are the same for every learner (and, with a
        memo, for every run)."""
        with self._shared_lock:
            future = self._shared.get(key)
            mine = future is None
            if mine:
                future = self._shared[key] = Future()
        if mine:
            try:
                future.set_result(make())  # type: ignore[union-attr]  # mine: made above
                self._changed = True
            except BaseException as exc:
                with self._shared_lock:
                    del self._shared[key]  # the next grading tries again
                future.set_exception(exc)  # type: ignore[union-attr]  # as above
        return future.result()  # type: ignore[union-attr]  # found or made above

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
            shared = {
                key: future.result()
                for key, future in self._shared.items()
                if future.done() and future.exception() is None
            }
            data = {
                "outcomes": {**kept.get("outcomes", {}), **self._outcomes},
                "measured": {**kept.get("measured", {}), **self._measured},
                "scripts": dict(self._scripts),
                "shared": shared,
            }
            self._changed = False
        self.memo.save(data)


# the name before 2026-12-02 (judge/validate.py still calls it)
Oracle.shared = Oracle.computed_once  # type: ignore[attr-defined]  # an alias, set here


def script_calls(task: Task, name: str, seed: int) -> list[dict[str, Any]]:
    from .literals import materialize

    rng = np.random.default_rng([seed, 7])
    return [materialize(args, rng) for args in task.scripts[name]]
