"""Figures that cannot be dodged (issue 20, classes 1, 4 and 5), graded end to end on the
bank's own known submissions in every isolation mode: host syncs made on another thread,
programs compiled ahead of time while the file loads, and work done on the host."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, run_judge
from helpers.isolation_modes import MODES

pytestmark = pytest.mark.slow


def grade(task: str, known: str, mode: str) -> dict:
    proc = run_judge(
        "run",
        task,
        ROOT / "tasks" / task / "known" / f"{known}.py",
        "--format",
        "json",
        "--isolation",
        mode,
        "--examples",
        "20",
    )
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-2000:])
    return json.loads(proc.stdout)


def check(report: dict, check_id: str) -> dict:
    return next(c for c in report["checks"] if c["id"] == check_id)


@pytest.mark.parametrize("mode", MODES)
def test_a_pull_through_a_thread_pool_is_counted_and_named(mode):
    report = grade("collatz_steps", "pool_bool", mode)
    assert report["verdict"] == "inefficient"
    sync = check(report, "sync")
    assert sync["status"] == "failed" and sync["details"]["count"] == 898
    assert (
        "bool() on thread 'ThreadPoolExecutor-N_N' (its work was handed over at this line)"
        in sync["message"]
        and "line 23" in sync["message"]
    )


@pytest.mark.parametrize("mode", MODES)
def test_programs_compiled_at_import_count_against_the_retrace_budget(mode):
    report = grade("bucketed_mean", "aot_every_length", mode)
    assert report["verdict"] == "inefficient"
    retrace = check(report, "retrace")
    assert retrace["status"] == "failed"
    assert "31 programs compiled while your file loaded" in retrace["message"]


@pytest.mark.parametrize("mode", MODES)
def test_work_done_on_the_host_is_inefficient(mode):
    report = grade("bucketed_mean", "numpy_python_mean", mode)
    assert report["verdict"] == "inefficient"
    assert "ran no program on the device" in check(report, "retrace")["message"]
    report = grade("huber", "device_get_numpy", mode)
    assert report["verdict"] == "inefficient"
    host_sync = check(report, "host_sync")
    assert host_sync["status"] == "failed" and "device_get" in host_sync["message"]


@pytest.mark.parametrize("mode", MODES)
def test_right_submissions_of_these_classes_stay_accepted(mode):
    assert grade("collatz_steps", "pool_without_reads", mode)["verdict"] == "accepted"
    assert grade("bucketed_mean", "jit_at_import", mode)["verdict"] == "accepted"
    # a reference that syncs itself (jax.debug.print every call) allows as many
    report = grade("logged_norm", "print_outside_jit", mode)
    assert report["verdict"] == "accepted" and check(report, "host_sync")["status"] == "passed"
