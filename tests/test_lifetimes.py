"""Whose time is whose: a trusted worker (the reference) serves many gradings and has no
run limit of its own; a learner's worker may be started long before its submission
arrives (a warm pool) and its run clock starts with the submission; one grading's clock
spans every restart of its worker."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np
import pytest

from judge.bank import load_bank
from judge.limits import Limits
from judge.runner import Grading, Oracle
from judge.sandbox import Worker
from judge.session import Session
from judge.verdicts import Verdict
from judge.worker import wire

BANK = Path(__file__).resolve().parent / "trust_bank"
X = {"x": wire.Leaf(np.arange(3, dtype=np.float32), "jax")}


@pytest.fixture(scope="module")
def task():
    return load_bank(BANK).get("double")


def test_a_trusted_worker_has_no_run_limit(tmp_path):
    w = Worker(Limits(call_timeout_s=5, run_timeout_s=1), trusted=True)
    w.start()
    try:
        path = Path(w.scratch) / "ref.py"
        path.write_text("import resource, time\n\ndef solve(x):\n    time.sleep(0.3)\n"
                        "    return resource.getrlimit(resource.RLIMIT_CPU)[0]\n")
        assert w.request({"op": "load", "path": str(path), "display_name": "ref.py",
                          "entrypoint": "solve", "probe": False})[0]["ok"]
        time.sleep(1.5)     # past the learner's run limit: nothing of it applies here
        blobs: list[bytes] = []
        reply, rblobs = w.request({"op": "call", "args": [wire.encode(X["x"], blobs)],
                                   "kwargs": {}, "label": "x", "probe": False}, blobs)
        assert reply["ok"], reply
        assert wire.decode(reply["result"], rblobs) == -1   # RLIM_INFINITY: no CPU limit
    finally:
        w.close()


def test_the_oracle_serves_after_a_run_limit_has_passed(task):
    short = dataclasses.replace(task, limits=Limits(call_timeout_s=5, run_timeout_s=1))
    oracle = Oracle(short, short.seed)
    oracle.start()
    try:
        assert oracle.value(X).array.tolist() == [0, 2, 4]
        time.sleep(1.5)
        assert oracle.value({"x": wire.Leaf(np.ones(2, np.float32), "jax")}).array.tolist() == [2, 2]
    finally:
        oracle.close()


def test_a_worker_started_early_is_graded_later(task, tmp_path):
    """A warm pool's worker: started, then waiting longer than the whole run limit,
    then given its submission."""
    short = dataclasses.replace(task, limits=Limits(call_timeout_s=3, run_timeout_s=3))
    submission = tmp_path / "double.py"
    submission.write_text("def double(x):\n    return x * 2\n")
    worker = Worker(short.limits, hidden_paths=short.bank.hidden_paths())
    worker.start()
    time.sleep(4)
    grading = Grading(short, submission, worker=worker)
    report = grading.run()
    assert report.verdict == Verdict.ACCEPTED, [c.message for c in report.checks]
    assert report.isolation == worker.isolation
    assert grading.learner_session.clock.charged_s < 3
    assert worker.closed


def test_one_clock_spans_the_restarts_of_a_grading(tmp_path):
    path = tmp_path / "crashy.py"
    path.write_text("import os, time\n\ndef solve(x):\n    time.sleep(0.8)\n    os._exit(1)\n")
    session = Session(path, "crashy.py", "solve", Limits(call_timeout_s=1.5, run_timeout_s=2))
    session.start()
    try:
        assert session.load().ok
        first = session.call(X, "x")
        assert first.verdict == Verdict.RUNTIME_ERROR and first.fatal
        second = session.restart()
        assert second.ok
        assert session.call(X, "x").verdict == Verdict.RUNTIME_ERROR
        session.restart()
        third = session.call(X, "x")      # 1.6 s of the run's 2 s are gone
        assert third.verdict == Verdict.TIME_LIMIT_EXCEEDED, third.message
        assert "2 s limit for the whole run" in third.message
    finally:
        session.close()
