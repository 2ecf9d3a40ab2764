"""A verdict must not depend on how busy the machine is: the seed task's known
submissions, graded with busy processes on every core beside them, each get the
verdict (and check statuses) its label says, as on a quiet machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from judge.bank import load_bank
from judge.validate import validate

pytestmark = pytest.mark.slow

TASK = "cache_independent_count"
_SPIN = "while True:\n    pass\n"


@pytest.fixture
def busy_machine():
    """Three busy processes per core (a load average of 3x the cores, and more with the
    judge's own), for as long as the test runs."""
    n = 3 * len(os.sched_getaffinity(0))
    spinners = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(n)]
    time.sleep(0.5)
    yield n
    for p in spinners:
        p.kill()
    for p in spinners:
        p.wait()


def test_known_submissions_keep_their_verdicts_on_a_busy_machine(busy_machine):
    task = load_bank().get(TASK)
    report = validate([task], workers=2)[0]
    gradings = [c for c in report.checks if c.id.startswith(("known:", "reference", "starter"))]
    assert len(gradings) >= 10
    wrong = [f"{c.id}: {c.message}" for c in gradings if c.status != "passed"]
    assert not wrong, "\n".join(wrong)
