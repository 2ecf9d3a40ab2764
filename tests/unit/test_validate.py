"""`judge validate` catches deliberately broken tasks, each with a message saying what
to fix.  A small task of its own keeps these fast."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from helpers import double_it_bank, put
from judge.bank import BankError, load_bank
from judge.validate import TaskValidation

FIELDS = """
    tolerance: TOLERANCE
    examples:
      - args: {x: {$array: [1, 2]}}
        expect: {$array: EXPECT}
    scripts:
      lens:
        - {args: {x: {$random: {shape: [4]}}}}
        - {args: {x: {$random: {shape: [4]}}}, repeat: 2}
        - {args: {x: {$random: {shape: [6]}}}}
    checks:
      - {id: examples, kind: example}
      - {id: property, kind: property, examples: 20, max_shapes: 4}
      - {id: retrace, kind: retrace, script: lens, budget: BUDGET}
"""
FILES = {
    "tasks/double_it/known/plus_two.py":
        "# expect: wrong_answer via property\ndef double_it(x):\n    return x + 2\n",
    "tasks/double_it/known/fresh_lambda.py":
        "# expect: inefficient via retrace\nimport jax\n\n"
        "def double_it(x):\n    return jax.jit(lambda v: 2 * v)(x)\n",
}


def make_bank(tmp_path: Path, *, expect="[2, 4]", budget="reference",
              tolerance="{mode: elementwise}", drop=(), extra=None) -> Path:
    fields = FIELDS.replace("EXPECT", expect).replace("BUDGET", budget).replace("TOLERANCE", tolerance)
    return double_it_bank(tmp_path, fields, {**FILES, **(extra or {})}, drop=drop)


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
    liar = {"tasks/double_it/known/not_wrong.py":
            "# expect: wrong_answer\nimport jax.numpy as jnp\n\ndef double_it(x):\n    return x * 2\n"}
    report, items = validate(make_bank(tmp_path, extra=liar))
    assert "labelled 'wrong_answer' but got: verdict accepted" in failed(items, "known:not_wrong.py")


@pytest.mark.slow
def test_required_check_without_teeth(tmp_path):
    report, items = validate(make_bank(tmp_path, drop=("tasks/double_it/known/fresh_lambda.py",)))
    assert "no known submission fails the required retrace check" in failed(items, "teeth:retrace")


@pytest.mark.slow
def test_tolerance_that_lets_float16_through(tmp_path):
    report, items = validate(make_bank(tmp_path, tolerance="{mode: elementwise, rtol: 0.01, atol: 0.01}"))
    assert "float16" in failed(items, "tolerance") and "tighten" in items["tolerance"].message


def test_typo_in_a_field_name(tmp_path):
    root = make_bank(tmp_path)
    text = (root / "tasks.yaml").read_text().replace("examples:\n", "exmaples:\n", 1)
    (root / "tasks.yaml").write_text(text)
    with pytest.raises(BankError) as err:
        load_bank(root)
    assert "task 'double_it'" in str(err.value) and "did you mean 'examples'" in str(err.value)


def test_missing_files_are_named(tmp_path):
    root = make_bank(tmp_path, drop=("tasks/double_it/starter.py",))
    report = TaskValidation(load_bank(root).get("double_it")).run()
    files = next(c for c in report.checks if c.id == "files")
    assert files.status == "failed" and "starter.py" in files.message


def test_domain_edges_are_checked_on_the_inputs_the_checks_draw(tmp_path, monkeypatch):
    """The edges are checked on what the property check actually tries, not on a pool's
    samples: a check that drew only one input reaches almost none of them."""
    import numpy as np

    from judge.checks.property import PropertyCheck
    from judge.worker.wire import Leaf

    root = make_bank(tmp_path)
    narrow = [{"x": Leaf(np.array([1.0, 2.0], np.float32), "jax")}]
    monkeypatch.setattr(PropertyCheck, "generated_inputs", lambda self, grading, prepared: narrow)
    validation = TaskValidation(load_bank(root).get("double_it"))
    validation.domain_edges()
    (domain,) = [c for c in validation.items if c.id == "domain"]
    assert domain.status == "failed"
    for edge in ("axis 0 (n) of 0", "axis 0 (n) of 8", "a negative value", "the value 10"):
        assert edge in domain.message


def test_placeholders_left_by_judge_new_are_refused(tmp_path):
    from judge.scaffold import create_task, init_bank

    init_bank(tmp_path, "course")
    create_task(load_bank(tmp_path), "double_it", 1, "TODO: a one-line title")
    v = TaskValidation(load_bank(tmp_path).get("double_it"))
    v.placeholders()
    (found,) = v.items
    assert found.status == "failed"
    for left in ("title 'TODO: a one-line title'", "tags: [todo]",
                 "statement.md line 7: TODO: the idea this task practises",
                 "returns_zeros.py line 2: # why: TODO"):
        assert left in found.message, (left, found.message)


def test_a_written_task_has_no_placeholders(tmp_path):
    v = TaskValidation(load_bank(make_bank(tmp_path)).get("double_it"))
    v.placeholders()
    assert [(i.id, i.status) for i in v.items] == [("placeholders", "passed")]


@pytest.mark.parametrize("tried, rejected, ok", [(21, 1, False), (21, 10, False), (21, 11, True),
                                                 (23, 14, True), (6, 6, True)])
def test_the_float16_trap_must_spring_on_most_inputs(tried, rejected, ok):
    from judge.validate import float16_item

    result = float16_item(tried, rejected)
    assert (result.status == "passed") == ok
    if not ok:
        assert f"pass on {tried - rejected} of {tried} inputs (it must reject most)" in result.message


@pytest.mark.slow
def test_a_known_submission_that_raised_shows_the_exception(tmp_path):
    typo = {"tasks/double_it/known/typo.py":
            "# expect: wrong_answer via property\nimport jax.numpy as jnp\n\n"
            "def double_it(x):\n    return jnp.multiplyy(x, 3)\n"}
    report, items = validate(make_bank(tmp_path, extra=typo))
    message = failed(items, "known:typo.py")
    assert "labelled 'wrong_answer; property failed/error' but got: verdict runtime_error" in message
    assert "raised:" in message and "multiplyy" in message


NORMALIZE = """
tasks:
  - id: normalize
    title: Normalise by the standard deviation
    step: 1
    dims: {n: [2, 8]}
    args:
      x: {type: array, dtype: float32, shape: [n], values: [-1, 1]}
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
        "    return (x - jnp.mean(x)) / (jnp.std(x) + 1e-6)\n")
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
    extra = {"tasks/double_it/known/fresh_lambda.py":
             "# expect: inefficient via retrace\n# dodge: ahead_of_time\nimport jax\n\n"
             "def double_it(x):\n    return jax.jit(lambda v: 2 * v)(x)\n",
             "tasks/double_it/known/typo.py":
             "# expect: wrong_answer via property\n# dodge: loop_flop\n"
             "def double_it(x):\n    return x + 3\n"}
    report, items = validate(make_bank(tmp_path, extra=extra))
    assert items["dodges"].details["dodges"] == [
        {"file": "fresh_lambda.py", "classes": ["ahead_of_time"], "caught_by": ["retrace"]}]
    assert "did you mean 'loop_flops'" in failed(items, "known:typo.py:dodge")
    assert report.verdict == "judge_error"
