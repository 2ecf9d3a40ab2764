"""End to end over the whole bank: every reference is accepted (also with --strict),
no starter is, and every known submission gets the verdict (and check statuses) its
label says.  One shared reference worker per task, as a batch would."""

from __future__ import annotations

import pytest

from judge.bank import load_bank
from judge.labels import read_labels
from judge.runner import Oracle, grade

BANK = load_bank()
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def oracles():
    made: dict[str, Oracle] = {}

    def get(task):
        if task.id not in made:
            made[task.id] = Oracle(task, task.seed)
            made[task.id].start()
        return made[task.id]
    yield get
    for o in made.values():
        o.close()


def _summary(report) -> str:
    return "; ".join(f"{c.id} {c.status}: {c.message.splitlines()[0][:160]}" for c in report.checks)


@pytest.mark.parametrize("task_id", sorted(BANK.tasks))
def test_reference_is_accepted_even_strict(task_id, oracles):
    task = BANK.get(task_id)
    report = grade(task, task.reference_path, strict=True, oracle=oracles(task))
    assert report.verdict == "accepted", _summary(report)


@pytest.mark.parametrize("task_id", sorted(BANK.tasks))
def test_starter_is_not_accepted(task_id, oracles):
    task = BANK.get(task_id)
    report = grade(task, task.starter_path, oracle=oracles(task))
    assert report.verdict not in ("accepted", "judge_error"), _summary(report)


KNOWN = [(t.id, p) for t in BANK.tasks.values() for p in t.known_submissions()]


@pytest.mark.parametrize("task_id, path", KNOWN, ids=[f"{t}/{p.name}" for t, p in KNOWN])
def test_known_submission_gets_its_label(task_id, path, oracles):
    task = BANK.get(task_id)
    for expectation in read_labels(path):
        report = grade(task, path, strict=expectation.strict, oracle=oracles(task))
        problems = expectation.problems(report)
        assert not problems, f"{expectation.describe()}: {problems}\n{_summary(report)}"


def test_every_task_has_enough_known_wrong_submissions():
    for task in BANK.tasks.values():
        wrong = [p for p in task.known_submissions()
                 if any(e.verdict != "accepted" for e in read_labels(p))]
        assert len(wrong) >= 4, f"{task.id} has {len(wrong)} known-wrong submissions"
