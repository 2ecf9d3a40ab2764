"""The other half of the bank's tasks (see test_bank_valid.py)."""

import pytest

from test_bank_valid import TASKS, validate


@pytest.mark.slow
@pytest.mark.parametrize("task_id", TASKS[1::2])
def test_task_is_valid(task_id):
    validate(task_id)
