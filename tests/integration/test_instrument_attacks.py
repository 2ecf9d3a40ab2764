"""Attacks on the performance checks from inside the worker (tests/attacks/), graded end
to end on the bank's own tasks in every isolation mode: what the worker sends back about
its calls comes from the learner's process, so the judge reads it only in the shapes the
instruments give, and matches the compile records against XLA's own count."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, run_judge
from helpers.isolation_modes import MODES

pytestmark = pytest.mark.slow
ATTACKS = ROOT / "tests" / "attacks"


def grade(task: str, attack: str, mode: str) -> dict:
    proc = run_judge(
        "run",
        task,
        ATTACKS / f"{attack}.py",
        "--format",
        "json",
        "--isolation",
        mode,
        "--examples",
        "30",
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    return json.loads(proc.stdout)


def instruments_message(report: dict) -> str:
    return next(c["message"] for c in report["checks"] if c["id"] == "instruments")


@pytest.mark.parametrize("mode", MODES)
def test_call_records_rewritten_on_the_way_out_are_caught(mode):
    report = grade("masked_row_sums", "rewrite_call_records", mode)
    assert report["verdict"] == "runtime_error"
    assert "XLA compiled" in instruments_message(report) and "records" in instruments_message(
        report
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_report_the_judge_would_choke_on_is_the_learners_tampering(mode):
    report = grade("masked_row_sums", "malformed_report", mode)
    assert report["verdict"] == "runtime_error"
    assert "report on your calls was rewritten" in instruments_message(report)


@pytest.mark.parametrize("mode", MODES)
def test_raising_only_under_the_judges_instrument_is_the_learners_error(mode):
    report = grade("safe_mean", "raise_only_when_measured", mode)
    assert report["verdict"] == "runtime_error"
    jaxpr = next(c for c in report["checks"] if c["id"] == "jaxpr")
    assert "no tracing today" in jaxpr["message"]


def grade_known(task: str, name: str, mode: str) -> dict:
    proc = run_judge(
        "run",
        task,
        ROOT / "tasks" / task / "known" / f"{name}.py",
        "--format",
        "json",
        "--isolation",
        mode,
        "--examples",
        "30",
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    return json.loads(proc.stdout)


@pytest.mark.parametrize("mode", MODES)
def test_sync_records_cleared_through_gc_are_caught(mode):
    report = grade_known("run_steps_no_sync", "review_sync_records_cleared", mode)
    assert report["verdict"] == "runtime_error"
    assert "sync counter kept were deleted" in instruments_message(report)


@pytest.mark.parametrize("mode", MODES)
def test_an_instruments_bound_functions_swapped_through_gc_are_caught(mode):
    report = grade_known("pairwise_sq_dists", "review_jaxpr_bound_swapped", mode)
    assert report["verdict"] == "runtime_error"
    assert "jaxpr instrument was changed (make_jaxpr)" in instruments_message(report)
