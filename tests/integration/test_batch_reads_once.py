"""Issue 21, the batch's half: the bytes discovery read and hashed are the bytes graded,
handed to the grading as they are (``source_bytes``), never written to a file to be read
back: a file changed after discovery is graded as it was when its hash was taken."""

from __future__ import annotations

from pathlib import Path

import judge.runner
import judge.sources
from judge.bank import load_bank
from judge.batch.discovery import Submission
from judge.batch.schedule import Options, OraclePool, grade_one

from helpers import TESTS

BANK = TESTS / "trust_bank"
RIGHT = b"def double(x):\n    return x * 2\n"


def test_a_batch_grading_takes_the_hashed_bytes_and_reads_no_file(tmp_path, monkeypatch):
    reads: list[Path] = []
    handed: list = []
    real_read, real_init = judge.sources.read_submission, judge.runner.Grading.__init__

    def read(path, **kw):
        reads.append(Path(path))
        return real_read(path, **kw)

    def init(self, task, submission, **kw):
        handed.append(kw.get("source_bytes"))
        real_init(self, task, submission, **kw)

    monkeypatch.setattr(judge.sources, "read_submission", read)
    monkeypatch.setattr(judge.runner.Grading, "__init__", init)
    on_disk = tmp_path / "alice" / "double.py"
    on_disk.parent.mkdir()
    on_disk.write_bytes(b"def double(x):\n    return x * 3\n")  # changed since it was read
    bank = load_bank(BANK)
    oracles = OraclePool()
    try:
        record = grade_one(
            bank,
            Submission(learner="alice", task_id="double", path=str(on_disk), source=RIGHT),
            Options(),
            oracles,
        )
    finally:
        oracles.close()
    assert record["verdict"] == "accepted", record
    assert handed and handed[0] is RIGHT  # the very bytes, not a copy read back
    outside = [p for p in reads if BANK.resolve() not in p.resolve().parents]
    assert not outside, outside
