"""Time that belongs to the learner's code: the load-aware meter on synthetic samples,
the run clock, and a worker computing beside busy processes (its call is charged its
own time, not the machine's).

Here: the tests that start a worker or a `judge` process; tests/unit/test_clock.py has the
rest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from judge.sandbox import Limits, RunClock, Worker, WorkerFailure
from judge.worker import wire

from helpers.isolation_modes import MODES

_SPIN = "import os, time\nos.nice(0)\nwhile True:\n    pass\n"


@pytest.fixture
def busy_machine():
    """Three busy processes per core of ours, on our cores."""
    n = 3 * len(os.sched_getaffinity(0))
    spinners = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(n)]
    time.sleep(0.3)
    yield
    for p in spinners:
        p.kill()
    for p in spinners:
        p.wait()


@pytest.mark.parametrize("mode", MODES)
def test_a_busy_machine_does_not_make_a_call_time_out(busy_machine, mode):
    """About 0.6 s of computing, under a 1.5 s call limit, with three busy processes on
    every core: on the clock it takes several seconds, charged it is its own time."""
    w = Worker(Limits(call_timeout_s=1.5, run_timeout_s=30), isolation=mode)
    w.start()
    try:
        path = Path(w.scratch) / "learner.py"
        path.write_text(
            textwrap.dedent("""
            import time

            def solve(x):
                t0, n = time.process_time(), 0
                while time.process_time() - t0 < 0.6:
                    n += 1
                return x
        """)
        )
        reply, _ = w.request(
            {
                "op": "load",
                "path": str(path),
                "display_name": "learner.py",
                "entrypoint": "solve",
                "probe": False,
            },
            timeout=30,
        )
        assert reply["ok"], reply
        blobs: list[bytes] = []
        header = {
            "op": "call",
            "args": [wire.encode(np.zeros(2), blobs)],
            "kwargs": {},
            "label": "x",
            "probe": False,
        }
        clock = RunClock(30)
        t = time.monotonic()
        try:
            reply, _ = w.request(header, blobs, clock=clock)
        except WorkerFailure as failure:
            pytest.fail(f"a busy machine made the call fail: {failure.message}")
        wall = time.monotonic() - t
        assert reply["ok"]
        assert 0.5 <= clock.charged_s < 1.5
        assert wall > clock.charged_s  # the machine was busy indeed
    finally:
        w.close()


def test_a_call_that_sleeps_is_charged_its_sleep():
    w = Worker(Limits(call_timeout_s=1.0, run_timeout_s=30))
    w.start()
    try:
        path = Path(w.scratch) / "learner.py"
        path.write_text("import time\ndef solve(x):\n    time.sleep(30)\n")
        assert w.request(
            {
                "op": "load",
                "path": str(path),
                "display_name": "learner.py",
                "entrypoint": "solve",
                "probe": False,
            }
        )[0]["ok"]
        blobs: list[bytes] = []
        header = {
            "op": "call",
            "args": [wire.encode(np.zeros(2), blobs)],
            "kwargs": {},
            "label": "x",
            "probe": False,
        }
        with pytest.raises(WorkerFailure) as info:
            w.request(header, blobs)
        assert info.value.kind == "timeout" and "1 s limit for one call" in info.value.message
        assert 1.0 <= info.value.detail["charged_s"] < 1.6
    finally:
        w.close()
