"""Issue 21: a worker started ahead of its grading (``judge run`` while the task is
parsed, the service's warm pool) has one owner, the grading it is handed to; and the
submission is read once, the bytes read being the bytes graded."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.bank import load_bank
from judge.limits import Limits
from judge.runner import Grading
from judge.sandbox.handle import WorkerHandle
from judge.session import start_learner_worker
from judge.verdicts import Verdict

BANK = Path(__file__).resolve().parents[1] / "trust_bank"
RIGHT = "def double(x):\n    return x * 2\n"


@pytest.fixture(scope="module")
def task():
    return load_bank(BANK).get("double")


def test_a_worker_that_cannot_serve_the_task_is_closed_by_the_grading(task, tmp_path):
    other = Limits(call_timeout_s=2, run_timeout_s=2)
    worker = start_learner_worker(other, hidden_paths=task.bank.hidden_paths())
    submission = tmp_path / "double.py"
    submission.write_text(RIGHT)
    try:
        with pytest.raises(ValueError, match="other limits"):
            Grading(task, submission, worker=worker)
        assert worker.closed  # handed over: the caller has nothing to close
    finally:
        worker.close()


def test_the_bytes_handed_in_are_the_bytes_graded(task, tmp_path):
    submission = tmp_path / "double.py"
    submission.write_text("def double(x):\n    return x * 3\n")  # changed since it was read
    report = Grading(task, submission, source_bytes=RIGHT.encode()).run()
    assert report.verdict == Verdict.ACCEPTED, [c.message for c in report.checks]


def test_judge_run_reads_the_submission_once_and_closes_each_worker_once(tmp_path, monkeypatch):
    import judge.session
    import judge.sources

    submission = tmp_path / "double.py"
    submission.write_text(RIGHT)
    reads, closes = [], Counter()
    real_read, real_close = judge.sources.read_submission, WorkerHandle.close

    def read(path, **kw):
        reads.append(Path(path))
        return real_read(path, **kw)

    def close(self):
        closes[id(self)] += 1
        return real_close(self)

    monkeypatch.setattr(judge.sources, "read_submission", read)
    monkeypatch.setattr(judge.session, "read_submission", read)
    monkeypatch.setattr(WorkerHandle, "close", close)
    from judge.cli import main

    result = CliRunner().invoke(main, ["--bank", str(BANK), "run", "double", str(submission)])
    assert result.exit_code == 0, result.output
    # the reference is reference/double.py: only the learner's path is counted (the
    # oracle reads its own file when this test is the first to warm it)
    assert [p for p in reads if p.resolve() == submission.resolve()] == [submission]
    assert closes and set(closes.values()) == {1}, closes
