"""Calls that act on another process of the same uid, or on what every process shares,
each made so that it would change nothing if it got through (its parent's own values set
again, a lease let go at once): the judge, a sandbox's init or a warm sandbox's server
is the parent.  Each outcome is returned by name ("ALLOWED: ..." where it got through)."""

import ctypes
import fcntl
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {
    "x86_64": {"prlimit64": 302, "memfd_create": 319, "inotify_init1": 294, "shmat": 30,
               "ioprio_get": 252, "ioprio_set": 251, "fanotify_init": 300, "vmsplice": 278,
               "ptrace": 101},
    "aarch64": {"prlimit64": 261, "memfd_create": 279, "inotify_init1": 26, "shmat": 196,
                "ioprio_get": 31, "ioprio_set": 30, "fanotify_init": 262, "vmsplice": 75,
                "ptrace": 117},
}[os.uname().machine]  # fmt: skip


class _Rlimit(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]


def _sys(nr, *args):
    result = libc.syscall(nr, *args)
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return result


def _try(fn):
    try:
        got = fn()
    except BaseException as exc:  # noqa: BLE001  (whatever stopped it is the answer)
        return f"denied: {type(exc).__name__}: {exc}"[:200]
    return f"ALLOWED: {got!r}"[:200]


def _read_parents_limit():
    old = _Rlimit()
    _sys(NR["prlimit64"], os.getppid(), 7, None, ctypes.byref(old))  # RLIMIT_NOFILE, read only
    return old.cur


def _lease():
    fd = os.open(json.__file__, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)  # F_SETLEASE
        fcntl.fcntl(fd, 1024, fcntl.F_UNLCK)
        return "leased"
    finally:
        os.close(fd)


def _memfd():
    fd = _sys(NR["memfd_create"], b"hoard", 0)
    os.close(fd)
    return fd


def _inotify():
    fd = _sys(NR["inotify_init1"], 0)
    os.close(fd)
    return fd


def _fanotify():
    fd = _sys(NR["fanotify_init"], 0x200 | 0x400, os.O_RDONLY)  # FAN_REPORT_FID|DIR_FID
    os.close(fd)
    return fd


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _vmsplice():
    """A page of its own memory into a pipe: pages a pipe holds are in no mapping."""
    r, w = os.pipe()
    try:
        buf = ctypes.create_string_buffer(4096)
        iov = _Iovec(ctypes.cast(buf, ctypes.c_void_p), 4096)
        return _sys(NR["vmsplice"], w, ctypes.byref(iov), 1, 0)
    finally:
        os.close(r)
        os.close(w)


def _bigger_pipe():
    r, w = os.pipe()
    try:
        return fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
    finally:
        os.close(r)
        os.close(w)


def solve(x):
    parent = os.getppid()
    out = {
        "read the parent's limit": _try(_read_parents_limit),
        "the parent's priority": _try(
            lambda: os.setpriority(os.PRIO_PROCESS, parent, os.getpriority(os.PRIO_PROCESS, parent))
        ),
        "every priority of the uid": _try(
            lambda: os.setpriority(os.PRIO_USER, 0, os.getpriority(os.PRIO_USER, 0))
        ),
        "the parent's cpus": _try(
            lambda: os.sched_setaffinity(parent, os.sched_getaffinity(parent))
        ),
        "the parent's scheduling": _try(
            lambda: os.sched_setscheduler(parent, os.sched_getscheduler(parent), os.sched_getparam(parent))
        ),
        "the parent's disk priority": _try(
            lambda: _sys(NR["ioprio_set"], 1, parent, _sys(NR["ioprio_get"], 1, parent))
        ),
        "a lease on a view file": _try(_lease),
        "a memfd": _try(_memfd),
        "an inotify instance": _try(_inotify),
        "a host's shared memory segment": _try(lambda: _sys(NR["shmat"], 0, None, 0o10000)),
        "the parent's pidfd": _try(lambda: os.close(os.pidfd_open(parent))),
        "a fanotify instance": _try(_fanotify),
        "memory spliced into a pipe": _try(_vmsplice),
        "a bigger pipe": _try(_bigger_pipe),
        "the parent as its tracer": _try(lambda: _sys(NR["ptrace"], 0, 0, 0, 0)),  # TRACEME
    }
    os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0))  # its own: allowed
    os.sched_setaffinity(0, os.sched_getaffinity(0))
    return out
