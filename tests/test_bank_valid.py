"""The whole bank validates: what `judge validate` checks, one test per task (slow: it
grades every reference, starter and known submission of the task)."""

import pytest

from judge.bank import load_bank
from judge.validate import TaskValidation

BANK = load_bank()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", sorted(BANK.tasks))
def test_task_is_valid(task_id):
    report = TaskValidation(BANK.get(task_id), workers=2).run()
    problems = [f"{c.id}: {c.message}" for c in report.checks if c.status != "passed" and c.required]
    assert report.verdict == "accepted", "\n".join(problems)
