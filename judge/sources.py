"""Reading a submission file that may have been made to hurt the judge.

Only a regular file is a submission: a FIFO would hang the judge, a link to /dev/zero
exhaust its memory, a link to a secret put the secret in the report.  So: lstat first;
the file is opened without blocking and without following a link at its last step,
checked again on the open descriptor, and read from that descriptor up to a cap: the
bytes returned are the bytes graded (and, in a batch, hashed).

Two callers, two rules for a symbolic link:

- ``read_submission``: one file someone named (``judge run``), whose link is followed
  only to a regular file inside the folder it sits in (``ln -s my_work.py task.py``).
- ``read_at``: a file in a class folder (``judge batch``), opened by name in a folder
  already open, never through a link (``IsALink``): in a class folder a link would
  hand in another learner's file as one's own, and a learner can commit one.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tokenize
from pathlib import Path

MAX_SUBMISSION_BYTES = 8 << 20  # a notebook with outputs; a .py is a few KB

_KINDS = [
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
]


_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


class SubmissionRefused(ValueError):
    """Not something the judge will read; the message is for the learner."""


class IsALink(SubmissionRefused):
    """``read_at`` met a symbolic link; ``target`` is the link's own text (read from the
    link, never followed), for the caller to say where it points."""

    def __init__(self, message: str, target: str):
        super().__init__(message)
        self.target = target


def _kind(mode: int) -> str:
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def read_submission(
    path: str | Path,
    *,
    within: str | Path | None = None,
    shown: str | None = None,
    max_bytes: int = MAX_SUBMISSION_BYTES,
) -> bytes:
    """The file's bytes, or SubmissionRefused saying why not.  ``within``: the folder a
    symbolic link may point into (default: the folder the path is in).  OSError (no
    such file, no permission) passes through: that is the caller's usage error."""
    path = Path(path)
    shown = shown or path.name
    folder = Path(os.path.realpath(within if within is not None else path.absolute().parent))
    st = os.lstat(path)
    target = path
    if stat.S_ISLNK(st.st_mode):
        target = Path(os.path.realpath(path))
        if not _inside(target, folder):
            raise SubmissionRefused(
                f"{shown} is a symbolic link to a file outside its folder: submit the file itself"
            )
        st = os.lstat(target)
    if not stat.S_ISREG(st.st_mode):
        raise SubmissionRefused(
            f"{shown} is {_kind(st.st_mode)}, not a file: submit the source file itself"
        )
    fd = os.open(target, _OPEN)
    try:
        return _read_open(fd, shown, max_bytes)[0]
    finally:
        os.close(fd)


def read_at(
    dir_fd: int, name: str, shown: str, max_bytes: int = MAX_SUBMISSION_BYTES
) -> tuple[bytes, os.stat_result]:
    """The bytes of the entry ``name`` of the folder open as ``dir_fd``, and the status
    of the file they were read from.  A symbolic link is never followed (``IsALink``);
    anything but a regular file is refused before it is opened, and again on the open
    descriptor (it may have been swapped in between).  OSError passes through."""
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        raise IsALink(f"{shown} is a symbolic link", os.readlink(name, dir_fd=dir_fd))
    if not stat.S_ISREG(st.st_mode):
        raise SubmissionRefused(
            f"{shown} is {_kind(st.st_mode)}, not a file: submit the source file itself"
        )
    try:
        fd = os.open(name, _OPEN, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # it became a link since the lstat
            raise IsALink(f"{shown} is a symbolic link", "") from None
        raise
    try:
        return _read_open(fd, shown, max_bytes)
    finally:
        os.close(fd)


def _read_open(fd: int, shown: str, max_bytes: int) -> tuple[bytes, os.stat_result]:
    st = os.fstat(fd)  # what was opened, not what was looked at before
    if not stat.S_ISREG(st.st_mode):
        raise SubmissionRefused(
            f"{shown} is {_kind(st.st_mode)}, not a file: submit the source file itself"
        )
    if st.st_size > max_bytes:
        raise SubmissionRefused(
            f"{shown} is {st.st_size / (1 << 20):.1f} MB; a submission may "
            f"be at most {max_bytes >> 20} MB"
        )
    chunks, size = [], 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        size += len(chunk)
        if size > max_bytes:  # it grew while being read
            raise SubmissionRefused(
                f"{shown} is larger than the {max_bytes >> 20} MB a submission may be"
            )
        chunks.append(chunk)
    return b"".join(chunks), st


def python_text(source: bytes) -> str | None:
    """The text Python reads from a .py file's bytes (a coding cookie, a BOM honoured),
    or None where Python could not decode them."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
