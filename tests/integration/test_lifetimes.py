"""Whose time is whose: a trusted worker (the reference) serves many gradings and has no
run limit of its own; a learner's worker may be started long before its submission
arrives (a warm pool) and its run clock starts with the submission; one grading's clock
spans every restart of its worker."""

from __future__ import annotations

import dataclasses
import shutil
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

from helpers import TESTS

BANK = TESTS / "trust_bank"
X = {"x": wire.Leaf(np.arange(3, dtype=np.float32), "jax")}


@pytest.fixture(scope="module")
def task():
    return load_bank(BANK).get("double")


# The run clock charges the time spent inside calls, not the time between them: a test
# that sleeps between calls proves nothing about a run limit (it passed with or without
# one).  These spend the limit inside calls, and show first that the same calls do run a
# learner out of time.
SLOW = "import time\n\ndef solve(x):\n    time.sleep(0.4)\n    return x\n"
TIGHT = Limits(call_timeout_s=5, run_timeout_s=1)


def test_the_same_slow_calls_run_a_learner_out_of_its_run_limit(tmp_path):
    path = tmp_path / "slow.py"
    path.write_text(SLOW)
    session = Session(path, "slow.py", "solve", TIGHT)
    session.start()
    try:
        assert session.load().ok
        verdicts = [session.call(X, "x").verdict for _ in range(4)]  # 1.6 s of a 1 s run
    finally:
        session.close()
    assert verdicts[0] is None  # the first call is within the limit
    assert verdicts[-1] == Verdict.TIME_LIMIT_EXCEEDED, verdicts


def test_a_trusted_worker_has_no_run_limit(tmp_path):
    w = Worker(TIGHT, trusted=True)
    w.start()
    try:
        path = Path(w.scratch) / "ref.py"
        path.write_text(
            SLOW + "\nimport resource\n\ndef cpu_limit(x):\n"
            "    return resource.getrlimit(resource.RLIMIT_CPU)[0]\n"
        )
        assert w.request(
            {
                "op": "load",
                "path": str(path),
                "display_name": "ref.py",
                "entrypoint": "solve",
                "probe": False,
            }
        )[0]["ok"]
        for _ in range(4):  # 1.6 s inside calls, past the learner's 1 s run limit
            blobs: list[bytes] = []
            reply, rblobs = w.request(
                {
                    "op": "call",
                    "args": [wire.encode(X["x"], blobs)],
                    "kwargs": {},
                    "label": "x",
                    "probe": False,
                },
                blobs,
            )
            assert reply["ok"], reply
        assert w.request(
            {
                "op": "load",
                "path": str(path),
                "display_name": "ref.py",
                "entrypoint": "cpu_limit",
                "probe": False,
            }
        )[0]["ok"]
        blobs = []
        reply, rblobs = w.request(
            {
                "op": "call",
                "args": [wire.encode(X["x"], blobs)],
                "kwargs": {},
                "label": "x",
                "probe": False,
            },
            blobs,
        )
        assert reply["ok"], reply
        assert wire.decode(reply["result"], rblobs) == -1  # RLIM_INFINITY: no CPU limit
    finally:
        w.close()


def test_the_oracle_serves_past_one_gradings_run_limit(task, tmp_path):
    """A validation or a batch keeps one reference worker for all its gradings: it must
    not stop when one grading's run_timeout_s has been spent computing references."""
    slow_reference = "import time\n\ndef double(x):\n    time.sleep(0.4)\n    return x * 2\n"
    bank = tmp_path / "bank"
    shutil.copytree(BANK, bank)
    (bank / "reference" / "double.py").write_text(slow_reference)
    slow = load_bank(bank).get("double")
    short = dataclasses.replace(slow, limits=TIGHT)
    oracle = Oracle(short, short.seed)
    oracle.start()
    try:
        got = [
            oracle.value({"x": wire.Leaf(np.full(n, 1.0, np.float32), "jax")}).array.tolist()
            for n in (1, 2, 3, 4)
        ]  # distinct inputs: nothing memoised, 1.6 s in all
    finally:
        oracle.close()
    assert got == [[2.0], [2.0, 2.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]]


def test_a_worker_started_early_is_graded_later(task, tmp_path):
    """A warm pool's worker: started, then given its submission; the grading owns it,
    and its run clock starts with the submission (the worker's start-up, importing jax,
    is not charged to the learner)."""
    short = dataclasses.replace(task, limits=Limits(call_timeout_s=3, run_timeout_s=3))
    submission = tmp_path / "double.py"
    submission.write_text("def double(x):\n    return x * 2\n")
    worker = Worker(short.limits, hidden_paths=short.bank.hidden_paths())
    started = time.monotonic()
    worker.start()
    grading = Grading(short, submission, worker=worker)
    report = grading.run()
    assert report.verdict == Verdict.ACCEPTED, [c.message for c in report.checks]
    assert report.isolation == worker.isolation
    assert grading.learner_session.clock.charged_s < time.monotonic() - started
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
        third = session.call(X, "x")  # 1.6 s of the run's 2 s are gone
        assert third.verdict == Verdict.TIME_LIMIT_EXCEEDED, third.message
        assert "2 s limit for the whole run" in third.message
    finally:
        session.close()
