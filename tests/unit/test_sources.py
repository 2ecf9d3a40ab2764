"""Submission files made to hurt the judge: a FIFO (hangs a reader), a link to /dev/zero
(endless), a link to a secret (its text in the report), a huge file.  Only regular
files are read; everything else is a clear invalid_submission, in `judge run` and in
`judge batch`, without hanging and without reading the target."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import TESTS
from judge.sources import SubmissionRefused, read_submission

BANK = TESTS / "trust_bank"
SECRET = "the-secret-first-line-91c2"


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "class"
    d.mkdir()
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    return d


def test_a_regular_file_is_read(folder):
    (folder / "ok.py").write_bytes(b"def double(x):\n    return x * 2\n")
    assert read_submission(folder / "ok.py").startswith(b"def double")


def test_a_link_inside_its_folder_is_followed(folder):
    (folder / "real.py").write_text("X = 1\n")
    (folder / "link.py").symlink_to("real.py")
    assert read_submission(folder / "link.py") == b"X = 1\n"


@pytest.mark.parametrize("make, words", [
    (lambda d: os.mkfifo(d / "sub.py"), "a named pipe (FIFO)"),
    (lambda d: (d / "sub.py").symlink_to("/dev/zero"), "a symbolic link to a file outside its folder"),
    (lambda d: (d / "sub.py").symlink_to(d.parent / "secret.txt"), "outside its folder"),
    (lambda d: (d / "sub.py").mkdir(), "a folder"),
    (lambda d: (d / "sub.py").write_bytes(b"#" * (9 << 20)), "a submission may be at most 8 MB"),
])
def test_anything_else_is_refused_in_words(folder, make, words):
    make(folder)
    with pytest.raises(SubmissionRefused) as info:
        read_submission(folder / "sub.py")
    assert words in str(info.value)
    assert SECRET not in str(info.value)


def test_a_device_inside_the_folder_is_still_not_a_file(folder):
    (folder / "zero.py").symlink_to("/dev/zero")
    with pytest.raises(SubmissionRefused, match="character device"):
        read_submission(folder / "zero.py", within="/")


def _run(args, timeout=60):
    return subprocess.run([sys.executable, "-m", "judge", "--bank", str(BANK), *args],
                          capture_output=True, text=True, timeout=timeout)


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
    out = _run(["batch", str(folder), "--out", str(tmp_path / "out"), "--isolation", "process"],
               timeout=120)
    assert out.returncode == 0, out.stderr
    records = {r["learner"]: r for r in map(json.loads,
                                             (tmp_path / "out" / "results.jsonl").read_text().splitlines())}
    assert records["ann"]["verdict"] == "accepted"
    for learner in ("bea", "cid", "dan"):
        assert records[learner]["verdict"] == "invalid_submission", records[learner]
    assert SECRET not in (tmp_path / "out" / "results.jsonl").read_text()
