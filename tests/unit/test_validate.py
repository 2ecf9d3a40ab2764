"""`judge validate` catches deliberately broken tasks, each with a message saying what
to fix.  A small task of its own keeps these fast.

Here: the tests that start no process; tests/integration/test_validate.py has those that
grade in a worker."""

from __future__ import annotations

import pytest

from judge.bank import BankError, load_bank
from judge.validate import TaskValidation

from helpers.validate_bank import make_bank


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
    for left in (
        "title 'TODO: a one-line title'",
        "tags: [todo]",
        "statement.md line 7: TODO: the idea this task practises",
        "returns_zeros.py line 2: # why: TODO",
    ):
        assert left in found.message, (left, found.message)


def test_a_written_task_has_no_placeholders(tmp_path):
    v = TaskValidation(load_bank(make_bank(tmp_path)).get("double_it"))
    v.placeholders()
    assert [(i.id, i.status) for i in v.items] == [("placeholders", "passed")]


@pytest.mark.parametrize(
    "tried, rejected, ok",
    [(21, 1, False), (21, 10, False), (21, 11, True), (23, 14, True), (6, 6, True)],
)
def test_the_float16_trap_must_spring_on_most_inputs(tried, rejected, ok):
    from judge.validate import float16_item

    result = float16_item(tried, rejected)
    assert (result.status == "passed") == ok
    if not ok:
        assert (
            f"pass on {tried - rejected} of {tried} inputs (it must reject most)" in result.message
        )
