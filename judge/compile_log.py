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

What remains possible: a learner who stops XLA from writing there from the start of a
compile (``jax.jit(f, compiler_options={"xla_dump_to": ...})`` for their own jits) and
also blinds the probe for those compiles is not caught by this count; neither is a
learner who makes their jits' compiles look like jax's own (the probe's attribution,
not its count).
"""

from __future__ import annotations

import ctypes
import os
import struct
from pathlib import Path

MARK = ".before_optimizations.txt"          # one per compiled program
_IN_ATTRIB, _IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x4, 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_NONBLOCK, _IN_CLOEXEC = 0x400, 0x800, 0o4000, 0o2000000
_EVENT = struct.Struct("iIII")


class CompileLog:
    """The programs XLA compiled into ``folder`` (a host path), counted from inotify
    events; ``count()`` reads what happened since the last call."""

    def __init__(self, folder: str | Path):
        self.folder = str(folder)
        self.compiled = 0
        self.problem: str | None = None      # the folder was tampered with
        self._other: list[str] = []          # XLA's other dumps (IR, buffer assignment)
        self._fd = -1
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        mask = (_IN_CREATE | _IN_MOVED_TO | _IN_DELETE | _IN_MOVED_FROM | _IN_ATTRIB
                | _IN_DELETE_SELF | _IN_MOVE_SELF)
        if libc.inotify_add_watch(fd, os.fsencode(self.folder), mask) < 0:
            error = ctypes.get_errno()
            os.close(fd)
            raise OSError(error, f"inotify_add_watch {self.folder}")
        self._fd = fd
        # what XLA wrote before the watch began (while the submission was imported)
        self.compiled = sum(name.endswith(MARK) for name in os.listdir(self.folder))
        self.at_start = self.compiled

    def count(self) -> int:
        while self._fd >= 0:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                break
            offset = 0
            while offset + _EVENT.size <= len(data):
                _, mask, _, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size: offset + _EVENT.size + length].rstrip(b"\0")
                offset += _EVENT.size + length
                self._event(mask, os.fsdecode(name))
        return self.compiled

    def _event(self, mask: int, name: str) -> None:
        if mask & (_IN_DELETE_SELF | _IN_MOVE_SELF):
            self.problem = self.problem or "the folder where XLA records its compiles was removed"
        elif mask & _IN_ATTRIB and not name:
            self.problem = self.problem or ("the permissions of the folder where XLA records "
                                            "its compiles were changed")
        elif mask & (_IN_DELETE | _IN_MOVED_FROM) and name.endswith(MARK):
            self.problem = self.problem or "records XLA wrote of its compiles were deleted"
        elif mask & (_IN_CREATE | _IN_MOVED_TO) and name.endswith(MARK):
            self.compiled += 1
        elif mask & _IN_CREATE and name:
            self._other.append(name)

    def prune(self) -> None:
        """Remove what XLA dumped besides its one record per compile (LLVM IR, buffer
        assignments: tens of MB for a large program), so that the count costs the
        learner's private /tmp almost nothing."""
        other, self._other = self._other, []
        for name in other:
            if "/" not in name and not name.endswith(MARK):
                try:
                    os.unlink(os.path.join(self.folder, name))
                except OSError:
                    pass

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def open_log(folder: str | None) -> CompileLog | None:
    """The compile log in ``folder`` (the judge's path to where the worker says XLA
    writes, from Worker.judges_path), or None when there is none to watch."""
    if not folder:
        return None
    try:
        return CompileLog(folder) if os.path.isdir(folder) else None
    except (OSError, ValueError):
        return None
