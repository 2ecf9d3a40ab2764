"""Submission files made to hurt the judge: a FIFO (hangs a reader), a link to /dev/zero
(endless), a link to a secret (its text in the report), a huge file.  Only regular
files are read; everything else is a clear invalid_submission, in `judge run` and in
`judge batch`, without hanging and without reading the target.

Here: the tests that start a worker or a `judge` process; tests/unit/test_sources.py has the
rest."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import TESTS


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "class"
    d.mkdir()
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    return d


BANK = TESTS / "trust_bank"

SECRET = "the-secret-first-line-91c2"


def _run(args, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "judge", "--bank", str(BANK), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("kind", ["fifo", "zero", "secret"])
def test_judge_run_says_invalid_submission(folder, kind):
    sub = folder / "sub.py"
    if kind == "fifo":
        os.mkfifo(sub)
    else:
        sub.symlink_to("/dev/zero" if kind == "zero" else folder.parent / "secret.txt")
    out = _run(["run", "double", str(sub), "--format", "json"])
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "invalid_submission"
    assert "sub.py is" in report["checks"][0]["message"]
    assert SECRET not in out.stdout and "Traceback" not in out.stderr


def test_judge_run_grades_a_link_to_a_file_of_its_own_folder(folder):
    """One file someone named: ``ln -s my_work.py double.py`` is what they mean to grade
    (a class folder follows no link: tests/test_class_folder.py)."""
    (folder / "my_work.py").write_text("def double(x):\n    return x * 2\n")
    (folder / "double.py").symlink_to("my_work.py")
    out = _run(["run", "double", str(folder / "double.py"), "--format", "json"])
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert json.loads(out.stdout)["verdict"] == "accepted"


def test_judge_batch_grades_the_rest_and_marks_them_invalid(folder, tmp_path):
    for learner in ("ann", "bea", "cid", "dan"):
        (folder / learner).mkdir()
    (folder / "ann" / "double.py").write_text("def double(x):\n    return x * 2\n")
    os.mkfifo(folder / "bea" / "double.py")
    (folder / "cid" / "double.py").symlink_to("/dev/zero")
    (folder / "dan" / "double.py").symlink_to(tmp_path / "secret.txt")
    out = _run(
        ["batch", str(folder), "--out", str(tmp_path / "out"), "--isolation", "process"],
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    records = {
        r["learner"]: r
        for r in map(json.loads, (tmp_path / "out" / "results.jsonl").read_text().splitlines())
    }
    assert records["ann"]["verdict"] == "accepted"
    for learner in ("bea", "cid", "dan"):
        assert records[learner]["verdict"] == "invalid_submission", records[learner]
    assert SECRET not in (tmp_path / "out" / "results.jsonl").read_text()
