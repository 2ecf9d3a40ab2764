"""`judge validate` on a reference's values and tolerance (issue 22): a NaN where the
statement defines a number, an exact tolerance on a computed float; and the one line
that ends each task's text, saying what passed and what did not apply."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from judge.bank import load_bank
from judge.compare import ResultSpec, Tolerance, compare
from judge.reference_checks import reference_checks
from judge.validate import TaskValidation
from judge.validation_summary import summary_line
from judge.worker.wire import Leaf

from helpers import ROOT, bank_of, run_judge

NAN_ON_EMPTY = (ROOT / "tasks" / "bucketed_mean" / "known" / "nan_on_empty.py").read_text()


def without_the_empty_example(entry: dict) -> None:
    """The statement still defines the empty input's mean as 0.0; tasks.yaml's
    examples no longer say so, which is how a NaN reference slips past them."""
    entry["examples"] = [ex for ex in entry["examples"] if ex["args"]["x"]["$array"]]


def items_of(root, task_id: str) -> dict:
    v = TaskValidation(load_bank(root).get(task_id))
    v.oracle.start()
    try:
        return {i.id: i for i in reference_checks(v.task, v.oracle, v._generated())}
    finally:
        v.oracle.close()


def test_a_reference_giving_nan_on_the_empty_input_fails_validation(tmp_path):
    root = bank_of(
        tmp_path,
        "bucketed_mean",
        edit=without_the_empty_example,
        references={"bucketed_mean": NAN_ON_EMPTY},
    )
    finite = items_of(root, "bucketed_mean")["finite"]
    assert finite.status == "failed" and finite.required
    assert finite.message.startswith("the reference gives nan on ")
    assert "bucketed_mean(x=np.float32[0] [])" in finite.message
    assert "jnp.where(n > 0, total / n, 0.0)" in finite.message


def test_the_right_reference_gives_finite_results(tmp_path):
    root = bank_of(tmp_path, "bucketed_mean", edit=without_the_empty_example)
    items = items_of(root, "bucketed_mean")
    assert items["finite"].status == "passed", items["finite"].message
    assert items["exact"].status == "passed"


def test_a_nan_an_example_expects_is_allowed(tmp_path):
    def expect_nan(entry):
        without_the_empty_example(entry)
        entry["examples"].append(
            {
                "args": {"x": {"$array": [], "dtype": "float32", "kind": "numpy"}},
                "expect": float("nan"),
            }
        )

    root = bank_of(
        tmp_path, "bucketed_mean", edit=expect_nan, references={"bucketed_mean": NAN_ON_EMPTY}
    )
    finite = items_of(root, "bucketed_mean")["finite"]
    assert finite.status == "passed" and "not applicable" in finite.message


def test_a_nan_tolerance_is_never_printed():
    got, nan = Leaf(np.asarray(np.float32(0.0)), "jax"), Leaf(np.asarray(np.float32("nan")), "jax")
    problem = compare(got, nan, ResultSpec(type="scalar"), Tolerance(), [])
    assert problem.message == "wrong value: expected nan, got 0.0"
    assert (
        "tolerance"
        in compare(
            got,
            Leaf(np.asarray(np.float32(1.0)), "jax"),
            ResultSpec(type="scalar"),
            Tolerance(),
            [],
        ).message
    )


TASK = """
tasks:
  - id: {id}
    title: {id}
    step: 1
    dims: {{n: [1, 8]}}
    args:
      x: {{type: array, dtype: float32, shape: [n], values: [-1, 1]}}
    result: {{type: {result}, dtype: float}}
    tolerance: {{mode: exact}}
    checks:
      - {{id: property, kind: property, examples: 20, max_shapes: 4}}
"""


def exact_bank(tmp_path, task_id: str, result: str, reference: str):
    (tmp_path / "tasks.yaml").write_text(textwrap.dedent(TASK.format(id=task_id, result=result)))
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / f"{task_id}.py").write_text(reference)
    return tmp_path


def test_an_exact_tolerance_on_a_computed_float_is_flagged(tmp_path):
    root = exact_bank(
        tmp_path,
        "mean_of",
        "scalar",
        "import jax.numpy as jnp\n\ndef mean_of(x):\n    return jnp.mean(x)\n",
    )
    exact = items_of(root, "mean_of")["exact"]
    assert exact.status == "failed" and exact.required
    assert exact.message.startswith("the tolerance is exact (mode: exact) on a floating result")
    assert "use mode: elementwise" in exact.message


def test_an_exact_tolerance_on_the_inputs_own_bits_is_right(tmp_path):
    root = exact_bank(tmp_path, "reversed_of", "array", "def reversed_of(x):\n    return x[::-1]\n")
    exact = items_of(root, "reversed_of")["exact"]
    assert exact.status == "passed", exact.message
    assert "the inputs' own bits" in exact.message


def test_the_summary_line_names_what_passed_and_what_did_not_apply():
    from judge.report import CheckResult, Report

    report = Report(task="t", submission="", seed=0, judge_version="", strict=False)
    report.checks = [
        CheckResult(id="files", kind="validate", required=True, status="passed", message="ok"),
        CheckResult(id="known:a.py", kind="validate", required=True, status="passed", message="ok"),
        CheckResult(id="known:b.py", kind="validate", required=True, status="passed", message="ok"),
        CheckResult(
            id="accuracy",
            kind="validate",
            required=True,
            status="passed",
            message="no float32 inputs: float64 check not needed",
        ),
        CheckResult(id="finite", kind="validate", required=True, status="failed", message="nan"),
    ]
    assert summary_line(report) == (
        "  passed 3: files, 2 known submissions; did not apply: accuracy; failed: finite"
    )


@pytest.mark.slow
def test_judge_validate_refuses_a_nan_reference_and_ends_with_the_summary(tmp_path):
    root = bank_of(
        tmp_path,
        "bucketed_mean",
        edit=without_the_empty_example,
        references={"bucketed_mean": NAN_ON_EMPTY},
    )
    done = run_judge("--bank", root, "validate", "bucketed_mean", timeout=900)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("INVALID  bucketed_mean")
    assert any("the reference gives nan on " in line for line in lines)
    assert "tolerance nan" not in done.stdout
    summary = lines[-2]  # the task's last line, before the bank's count
    assert summary.startswith("  passed ") and "failed: " in summary and "finite" in summary
    assert lines[-1] == "0 of 1 tasks valid; fix: bucketed_mean"
