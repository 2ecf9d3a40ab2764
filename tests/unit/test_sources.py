"""Submission files made to hurt the judge: a FIFO (hangs a reader), a link to /dev/zero
(endless), a link to a secret (its text in the report), a huge file.  Only regular
files are read; everything else is a clear invalid_submission, in `judge run` and in
`judge batch`, without hanging and without reading the target.

Here: the tests that start no process; tests/integration/test_sources.py has those that
grade in a worker."""

from __future__ import annotations

import os

import pytest

from judge.sources import SubmissionRefused, read_submission

from helpers import TESTS

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


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda d: os.mkfifo(d / "sub.py"), "a named pipe (FIFO)"),
        (
            lambda d: (d / "sub.py").symlink_to("/dev/zero"),
            "a symbolic link to a file outside its folder",
        ),
        (lambda d: (d / "sub.py").symlink_to(d.parent / "secret.txt"), "outside its folder"),
        (lambda d: (d / "sub.py").mkdir(), "a folder"),
        (
            lambda d: (d / "sub.py").write_bytes(b"#" * (9 << 20)),
            "a submission may be at most 8 MB",
        ),
    ],
)
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
