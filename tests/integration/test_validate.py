"""`judge validate` catches deliberately broken tasks, each with a message saying what
to fix.  A small task of its own keeps these fast.

Here: the tests that start a worker or a `judge` process; tests/unit/test_validate.py has the
rest."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from judge.bank import load_bank
from judge.validate import TaskValidation

from helpers.validate_bank import make_bank


def validate(root: Path):
    report = TaskValidation(load_bank(root).get("double_it"), workers=2).run()
    return report, {c.id: c for c in report.checks}


def failed(items, key) -> str:
    item = items[key]
    assert item.status == "failed", f"{key} {item.status}: {item.message}"
    return item.message


@pytest.mark.slow
def test_a_sound_task_is_valid(tmp_path):
    report, items = validate(make_bank(tmp_path))
    assert report.verdict == "accepted", [c.message for c in report.checks if c.status != "passed"]
    assert "plus_two.py" in items["teeth:property"].message
    assert "fresh_lambda.py" in items["teeth:retrace"].message


@pytest.mark.slow
def test_example_that_disagrees_with_the_reference(tmp_path):
    report, items = validate(make_bank(tmp_path, expect="[2, 5]"))
    assert report.verdict == "judge_error"
    assert "disagrees with the reference" in failed(items, "example 1")


@pytest.mark.slow
def test_reference_over_its_own_retrace_budget(tmp_path):
    report, items = validate(make_bank(tmp_path, budget="1"))
    assert "the reference is not accepted" in failed(items, "reference")
    assert "retrace" in items["reference"].message


@pytest.mark.slow
def test_known_wrong_submission_that_passes(tmp_path):
    liar = {
        "tasks/double_it/known/not_wrong.py": "# expect: wrong_answer\nimport jax.numpy as jnp\n\ndef double_it(x):\n    return x * 2\n"
    }
    report, items = validate(make_bank(tmp_path, extra=liar))
    assert "labelled 'wrong_answer' but got: verdict accepted" in failed(
        items, "known:not_wrong.py"
    )


@pytest.mark.slow
def test_required_check_without_teeth(tmp_path):
    report, items = validate(make_bank(tmp_path, drop=("tasks/double_it/known/fresh_lambda.py",)))
    assert "no known submission fails the required retrace check" in failed(items, "teeth:retrace")


@pytest.mark.slow
def test_tolerance_that_lets_float16_through(tmp_path):
    report, items = validate(
        make_bank(tmp_path, tolerance="{mode: elementwise, rtol: 0.01, atol: 0.01}")
    )
    assert "float16" in failed(items, "tolerance") and "tighten" in items["tolerance"].message


@pytest.mark.slow
def test_a_known_submission_that_raised_shows_the_exception(tmp_path):
    typo = {
        "tasks/double_it/known/typo.py": "# expect: wrong_answer via property\nimport jax.numpy as jnp\n\n"
        "def double_it(x):\n    return jnp.multiplyy(x, 3)\n"
    }
    report, items = validate(make_bank(tmp_path, extra=typo))
    message = failed(items, "known:typo.py")
    assert (
        "labelled 'wrong_answer; property failed/error' but got: verdict runtime_error" in message
    )
    assert "raised:" in message and "multiplyy" in message


NORMALIZE = """
tasks:
  - id: normalize
    title: Normalise by the standard deviation
    step: 1
    dims: {n: [2, 8]}
    args:
      # nearly constant on every input drawn, not only on the ones a shape pool happens
      # to reach: the standard deviation is then float32 rounding noise
      x: {type: array, dtype: float32, shape: [n], values: [0.1, 0.10001]}
    result: {type: array, dtype: same}
    tolerance: {mode: elementwise}
    checks:
      - {id: property, kind: property, examples: 30, max_shapes: 4}
"""


def test_a_tolerance_that_rejects_a_more_accurate_answer(tmp_path):
    """Nearly constant inputs make the float32 reference's answer rounding noise: the
    reference computed in float64 disagrees, and validate says the task hinges on it."""
    (tmp_path / "tasks.yaml").write_text(textwrap.dedent(NORMALIZE))
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "normalize.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef normalize(x):\n"
        "    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)\n"
    )
    v = TaskValidation(load_bank(tmp_path).get("normalize"))
    v.oracle.start()
    try:
        v.float64_accuracy()
    finally:
        v.oracle.close()
    (accuracy,) = v.items
    assert accuracy.status == "failed"
    assert "rejects the reference computed in float64" in accuracy.message
    assert "a more accurate answer is not a wrong one" in accuracy.message


@pytest.mark.slow
def test_dodge_labels_are_read_and_a_misspelt_one_is_refused(tmp_path):
    """Each known submission's '# dodge:' classes, with the kinds of check that caught
    it, go into the task's `dodges` item (what the bank-wide rule reads); a class the
    judge does not know is an unreadable label, named."""
    extra = {
        "tasks/double_it/known/fresh_lambda.py": "# expect: inefficient via retrace\n# dodge: ahead_of_time\nimport jax\n\n"
        "def double_it(x):\n    return jax.jit(lambda v: 2 * v)(x)\n",
        "tasks/double_it/known/typo.py": "# expect: wrong_answer via property\n# dodge: loop_flop\n"
        "def double_it(x):\n    return x + 3\n",
    }
    report, items = validate(make_bank(tmp_path, extra=extra))
    assert items["dodges"].details["dodges"] == [
        {"file": "fresh_lambda.py", "classes": ["ahead_of_time"], "caught_by": ["retrace"]}
    ]
    assert "did you mean 'loop_flops'" in failed(items, "known:typo.py:dodge")
    assert report.verdict == "judge_error"
