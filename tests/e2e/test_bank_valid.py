"""The whole bank validates: what `judge validate` checks, one test per task (slow: it
grades every reference, starter and known submission of the task; most of the suite's
time, spread over the test processes by --dist worksteal).

The seed task is validated with busy processes on every core beside it: a verdict must
not depend on how busy the machine is, so its known submissions, graded under load, must
each get the verdict (and check statuses) their labels say, as on a quiet machine.  That
is the same validation the task needs anyway, run once instead of twice."""

import os
import subprocess
import sys
import time

import pytest

from judge.bank import load_bank
from judge.validate import TaskValidation

BANK = load_bank()
TASKS = sorted(BANK.tasks)
UNDER_LOAD = "cache_independent_count"
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


def assert_valid(task_id: str):
    report = TaskValidation(BANK.get(task_id), workers=2).run()
    problems = [
        f"{c.id}: {c.message}" for c in report.checks if c.status != "passed" and c.required
    ]
    assert report.verdict == "accepted", "\n".join(problems)
    return report


@pytest.mark.slow
@pytest.mark.parametrize("task_id", [t for t in TASKS if t != UNDER_LOAD])
def test_task_is_valid(task_id):
    assert_valid(task_id)


@pytest.mark.slow
def test_the_seed_task_is_valid_on_a_busy_machine(busy_machine):
    report = assert_valid(UNDER_LOAD)
    gradings = [c for c in report.checks if c.id.startswith(("known:", "reference", "starter"))]
    assert len(gradings) >= 10
    wrong = [f"{c.id}: {c.message}" for c in gradings if c.status != "passed"]
    assert not wrong, "\n".join(wrong)
