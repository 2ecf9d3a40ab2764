"""XLA's own count of what it compiled in a learner's worker, read where the learner's
code cannot change it.

The learner's code runs in the same process as the probe that counts its compiles, so
a determined learner can blind the probe (clear jax's monitoring listeners, swap the
probe's methods).  It cannot blind the kernel: the worker's XLA writes one
``*.before_optimizations.txt`` for every program it compiles into a folder of the
worker's scratch (``--xla_dump_to``, set before jax starts), and the judge watches that
folder with inotify from its own process.  A file is counted when it is created, so
deleting it later hides nothing; the folder itself being removed, moved or having its
permissions changed is seen too.  The judge compares the count with the probe's after
every request: XLA compiling more than the probe saw means the probe was blinded.

The folder is the learner's to write, so the judge never names it by its path once the
learner's code could have run: its descriptor and the watch (on that descriptor, not on
a name) are taken when the worker says it is ready, before the submission is even sent,
and everything after, the count and the pruning of XLA's other dumps, goes through
them.  A folder moved, replaced by a link, made unreadable, or a watch that lost events
is tampering, never a count quietly skipped (``problem``).

What remains possible: jax's compiles drop a learner's ``xla_dump_*`` compiler options
(judge/worker/xla_records.py), but a learner who compiles through the backend client
straight, with options of their own that dump elsewhere, and also blinds the probe for
those compiles is not caught by this count; neither is a
learner who makes their jits' compiles look like jax's own (the probe's attribution,
not its count).
"""

from __future__ import annotations

import ctypes
import os
import struct
from pathlib import Path

MARK = ".before_optimizations.txt"  # one per compiled program
_IN_ATTRIB, _IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x4, 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_NONBLOCK, _IN_CLOEXEC = 0x400, 0x800, 0o4000, 0o2000000
_IN_UNMOUNT, _IN_Q_OVERFLOW, _IN_IGNORED = 0x2000, 0x4000, 0x8000
_EVENT = struct.Struct("iIII")
_FOLDER = "the folder where the judge keeps XLA's records of your compiles"


class CompileLog:
    """The programs XLA compiled into a folder, counted from inotify events on it;
    ``count()`` reads what happened since the last call.  ``folder``: the folder's
    descriptor (taken over: closed by ``close()``), or a path the judge itself chose."""

    def __init__(self, folder: int | str | Path):
        self.compiled = 0
        self.problem: str | None = None  # the folder was tampered with
        self._other: list[str] = []  # XLA's other dumps (IR, buffer assignment)
        self._fd = -1
        self._dir = (
            folder
            if isinstance(folder, int)
            else os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        )
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
            if fd < 0:
                raise OSError(ctypes.get_errno(), "inotify_init1")
            mask = (
                _IN_CREATE
                | _IN_MOVED_TO
                | _IN_DELETE
                | _IN_MOVED_FROM
                | _IN_ATTRIB
                | _IN_DELETE_SELF
                | _IN_MOVE_SELF
            )
            # the folder the descriptor holds, wherever it is moved later, whatever
            # takes its name: /proc/self/fd/N is the open folder itself
            if libc.inotify_add_watch(fd, os.fsencode(f"/proc/self/fd/{self._dir}"), mask) < 0:
                error = ctypes.get_errno()
                os.close(fd)
                raise OSError(error, "inotify_add_watch on the compile records' folder")
            self._fd = fd
            # what XLA wrote before the watch began
            self.compiled = sum(name.endswith(MARK) for name in os.listdir(self._dir))
        except BaseException:
            os.close(self._dir)
            self._dir = -1
            raise
        self.at_start = self.compiled

    def count(self) -> int:
        while self._fd >= 0:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError as exc:
                self._tampered(f"the judge could not read its watch on {_FOLDER} ({exc})")
                break
            offset = 0
            while offset + _EVENT.size <= len(data):
                _, mask, _, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
                offset += _EVENT.size + length
                self._event(mask, os.fsdecode(name))
        if self._dir >= 0 and not self.problem:
            self._check_room()
        return self.compiled

    def _check_room(self) -> None:
        """A file system with no inode left (a tmpfs filled with empty files costs no
        space) lets XLA create no record: its compiles would go uncounted."""
        try:
            st = os.fstatvfs(self._dir)
        except OSError as exc:
            self._tampered(f"the judge could not look at {_FOLDER} ({exc})")
            return
        if st.f_files and not st.f_ffree:
            self._tampered(
                f"your code made so many files that no file could be made in {_FOLDER} any more"
            )

    def _tampered(self, what: str) -> None:
        self.problem = self.problem or what

    def _event(self, mask: int, name: str) -> None:
        if mask & (_IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED | _IN_UNMOUNT):
            self._tampered(f"{_FOLDER} was moved or removed (or replaced by a link)")
        elif mask & _IN_Q_OVERFLOW:
            # the kernel dropped events: compiles among them would go uncounted
            self._tampered(
                f"so many files were made in {_FOLDER} that the judge's count of them overflowed"
            )
        elif mask & _IN_ATTRIB and not name:
            self._tampered(f"the permissions of {_FOLDER} were changed")
        elif mask & (_IN_DELETE | _IN_MOVED_FROM) and name.endswith(MARK):
            self._tampered(f"records XLA wrote of your compiles were deleted from {_FOLDER}")
        elif mask & (_IN_CREATE | _IN_MOVED_TO) and name.endswith(MARK):
            self.compiled += 1
        elif mask & _IN_CREATE and name:
            self._other.append(name)

    def prune(self) -> None:
        """Remove what XLA dumped besides its one record per compile (LLVM IR, buffer
        assignments: tens of MB for a large program), so that the count costs the
        learner's private /tmp almost nothing.  Only in the folder the descriptor holds,
        by names created there, never through a link (unlinkat removes a link itself);
        nothing at all once the folder was tampered with."""
        other, self._other = self._other, []
        if self.problem or self._dir < 0:
            return
        for name in other:
            if "/" not in name and name not in (".", "..") and not name.endswith(MARK):
                try:
                    os.unlink(name, dir_fd=self._dir)
                except OSError:
                    pass

    def close(self) -> None:
        for attr in ("_fd", "_dir"):
            fd = getattr(self, attr)
            if fd >= 0:
                os.close(fd)
                setattr(self, attr, -1)
