"""The whole bank validates: what `judge validate` checks, one test per task (slow: it
grades every reference, starter and known submission of the task).  The tasks are
split over two modules (this one and test_bank_valid_rest.py), so that the suite's two
test processes, which take whole modules, share the bank's validation: most of the
suite's time."""

import pytest

from judge.bank import load_bank
from judge.validate import TaskValidation

BANK = load_bank()
TASKS = sorted(BANK.tasks)


def validate(task_id: str) -> None:
    report = TaskValidation(BANK.get(task_id), workers=2).run()
    problems = [f"{c.id}: {c.message}" for c in report.checks if c.status != "passed" and c.required]
    assert report.verdict == "accepted", "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("task_id", TASKS[::2])
def test_task_is_valid(task_id):
    validate(task_id)
