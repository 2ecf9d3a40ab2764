"""Issue 22, the report: a performance check the values kept from being measured is
``skipped`` with the reason, for every kind and every writer; and the report lists the
checks in the order ``judge show`` lists them (the task's), not the order they ran."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from judge.bank import load_bank
from judge.report import CheckResult
from judge.runner import Grading
from judge.values_first import performance_skipped_while_values_wrong
from judge.verdicts import Status, Verdict

OFF_BY_ONE = """import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    mask = jnp.arange(values.shape[1])[None, :] <= lengths[:, None]     # one entry too many
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)
"""


# ------------------------------------------------------------------ no process started


class Spec:
    """What performance_skipped_while_values_wrong reads of a check's spec."""

    def __init__(self, id, performance, required=True):
        self.id, self.kind, self.performance, self.required = id, id, performance, required

    def result(self, status, message, **kw):
        return CheckResult(
            id=self.id, kind=self.kind, required=self.required, status=status, message=message, **kw
        )


def wrong(spec):
    return spec.result(Status.FAILED, "expected 1.0, got 2.0", verdict=Verdict.WRONG_ANSWER)


@pytest.mark.parametrize("measured", ["ran_into_it", "fine"])
def test_a_performance_check_is_skipped_while_the_values_are_wrong(measured):
    value, cost = Spec("examples", False), Spec("cost", True)
    mine = wrong(cost) if measured == "ran_into_it" else cost.result(Status.PASSED, "within")
    out = performance_skipped_while_values_wrong([value, cost], [wrong(value), mine])
    assert out[0].status == Status.FAILED  # the value check says it
    assert out[1].status == Status.SKIPPED, out[1]
    assert out[1].details["values_wrong"] is True
    assert "the values are wrong" in out[1].message
    assert "the examples check above shows where" in out[1].message


def test_an_advisory_value_check_does_not_skip_a_performance_check():
    value, cost = Spec("examples", False, required=False), Spec("cost", True)
    out = performance_skipped_while_values_wrong([value, cost], [wrong(value), wrong(cost)])
    assert out[1].status == Status.FAILED and out[1].verdict == Verdict.WRONG_ANSWER
    strict = performance_skipped_while_values_wrong(
        [value, cost], [wrong(value), wrong(cost)], strict=True
    )
    assert strict[1].status == Status.SKIPPED


def test_a_performance_check_found_wanting_stays_failed():
    value, cost = Spec("examples", False), Spec("cost", True)
    slow = cost.result(Status.FAILED, "3 programs, budget 1", verdict=Verdict.INEFFICIENT)
    out = performance_skipped_while_values_wrong([value, cost], [wrong(value), slow])
    assert out[1].status == Status.FAILED and out[1].verdict == Verdict.INEFFICIENT


# ------------------------------------------------------------------ one real grading


@pytest.fixture(scope="module")
def off_by_one(tmp_path_factory):
    task = load_bank().get("masked_row_sums")
    path = tmp_path_factory.mktemp("mine") / "mine.py"
    path.write_text(OFF_BY_ONE)
    return task, Grading(task, path, examples=20).run()


def test_the_report_lists_checks_as_judge_show_does(off_by_one):
    task, report = off_by_one
    ran = [c.id for c in sorted(task.checks, key=lambda c: c.phase)]
    assert ran != [c.id for c in task.checks]  # the task runs them in another order
    assert [c.id for c in report.checks] == [c.id for c in task.checks]
    from judge.catalog import show_text

    shown = show_text(task)
    listed = shown[shown.index("Checks:") :]
    places = [listed.index(f"  {c.id} (") for c in report.checks]
    assert places == sorted(places)


def test_every_writer_shows_the_performance_checks_skipped(off_by_one):
    from judge.writers import writer

    task, report = off_by_one
    assert report.verdict == Verdict.WRONG_ANSWER
    performance = [c for c in task.checks if c.performance]
    assert performance
    by_id = {c.id: c for c in report.checks}
    for spec in performance:
        assert by_id[spec.id].status == Status.SKIPPED, by_id[spec.id]
        assert "so its performance is not measured" in by_id[spec.id].message

    def written(fmt):
        out = io.StringIO()
        writer(fmt)(report, out)
        return out.getvalue()

    suite = ET.fromstring(written("junit"))
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    for spec in performance:
        case = next(v for k, v in cases.items() if spec.id in k)
        assert case.find("skipped") is not None and case.find("failure") is None
    assert int(suite.get("skipped")) == len(performance)

    gradescope = json.loads(written("gradescope"))["tests"]
    for spec in performance:
        test = next(t for t in gradescope if t["extra_data"]["check"] == spec.id)
        assert test["status"] != "failed" and test["score"] == 0, test

    exercism = json.loads(written("exercism"))["tests"]
    for spec in performance:
        test = next(t for t in exercism if t["name"] == spec.id)
        assert test["status"] != "fail", test

    text = written("text")
    for spec in performance:
        line = next(ln for ln in text.splitlines() if spec.id in ln and "performance" in ln)
        assert "skip" in line and "FAIL" not in line, line
