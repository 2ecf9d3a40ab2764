"""The worker's own confinement, set at boot before numpy, jax or any learner code:
every capability dropped (a worker of a root judge that keeps uid 0), no new
privileges, a Landlock domain (files, TCP, signals, abstract sockets), and a seccomp
filter for what Landlock does not cover (other sockets, System V IPC, ...).

Standard library only (ctypes); what to allow comes from the judge, in the config.
Every step that the kernel refuses is reported back in ``failed``: the judge decides
whether that is acceptable, the worker never silently runs weaker than planned.
"""

from __future__ import annotations

import ctypes
import importlib.abc
import importlib.machinery
import importlib.util
import os
import stat
import sys

_PR_SET_NO_NEW_PRIVS = 38
_PR_CAPBSET_DROP = 24
_PR_SET_SECUREBITS = 28
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
# SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP, SECBIT_NO_CAP_AMBIENT_RAISE and each one's lock;
# SECBIT_KEEP_CAPS stays off, locked
_SECUREBITS = 0b1110_1111
_SYS_CAPSET = 126
_SYS_LANDLOCK_CREATE_RULESET, _SYS_LANDLOCK_ADD_RULE, _SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
_LANDLOCK_RULE_PATH_BENEATH = 1
_FILE_RIGHTS = 1 | 2 | 4 | (1 << 14) | (1 << 15)  # execute, write, read, truncate, ioctl_dev


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _check(result: int, what: str) -> None:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def drop_capabilities() -> None:
    """Keep uid 0, lose every capability, for good: securebits locked so that no exec
    gives them back, the bounding and ambient sets emptied, then capset to nothing."""
    libc = _libc()
    _check(libc.prctl(_PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0), "securebits")
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        _check(libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(libc.syscall(_SYS_CAPSET, ctypes.byref(header), ctypes.byref(data)), "capset")


def no_new_privileges() -> None:
    _check(_libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def landlock(abi: int, rules: list) -> None:
    """One Landlock domain: files as ``rules`` allow ((path, rights); -1 is every right
    handled), no TCP (ABI 4), no signals or abstract sockets out of the domain (ABI 6)."""
    libc = _libc()
    fs = (1 << 13) - 1
    if abi >= 2:
        fs |= 1 << 13
    if abi >= 3:
        fs |= 1 << 14
    if abi >= 5:
        fs |= 1 << 15
    attr = _RulesetAttr(fs, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = libc.syscall(
        _SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    _check(ruleset, "landlock_create_ruleset")
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone since the judge listed it
            try:
                allowed = fs if rights == -1 else rights & fs
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    allowed &= _FILE_RIGHTS
                rule = _PathBeneath(allowed, fd)
                _check(
                    libc.syscall(
                        _SYS_LANDLOCK_ADD_RULE,
                        ctypes.c_int(ruleset),
                        ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
                        ctypes.byref(rule),
                        ctypes.c_uint32(0),
                    ),
                    f"landlock rule for {path}",
                )
            finally:
                os.close(fd)
        no_new_privileges()
        _check(
            libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)),
            "landlock_restrict_self",
        )
    finally:
        os.close(ruleset)


# seccomp: system calls a learner's code has no use for and Landlock does not cover:
# sockets of any kind (UDP, raw, netlink, a connect to a named Unix socket such as
# /var/run/docker.sock), io_uring (it makes sockets past this filter), System V IPC and
# POSIX message queues (every call: a root worker may attach to the host's segments;
# workers forked in one sandbox share an IPC namespace), the kernel keyrings, bpf, perf
# events, userfaultfd, ptrace; memfd_create, vmsplice and a pipe's size (memory no
# mapping shows, so no watch would count it); inotify and fanotify (they name what
# happens in folders shared with other workers, and on the host), pidfd_open and
# open_by_handle_at (pidfds of processes it cannot see); file leases and dnotify (a lease
# on a file of the read-only view holds up every other process that opens it, across
# sandboxes: the worker owns those files as uid 0 outside);
# and changing a file's metadata (mode, owner, times, extended attributes), which
# Landlock leaves open: run as uid 0 without capabilities the worker still owns every
# root-owned file on the host.
# Calls that act on a process by pid act on the worker itself only (pid 0): with the
# same uid as its siblings, the server it was forked from or (uid 0) the judge, it could
# otherwise set their resource limits, priority, CPUs or scheduling.
# Each refused call fails with EPERM.
_CALLS = {
    "x86_64": {
        "socket": 41,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "shmget": 29,
        "shmat": 30,
        "shmctl": 31,
        "shmdt": 67,
        "semget": 64,
        "semop": 65,
        "semctl": 66,
        "semtimedop": 220,
        "msgget": 68,
        "msgsnd": 69,
        "msgrcv": 70,
        "msgctl": 71,
        "mq_open": 240,
        "mq_unlink": 241,
        "mq_timedsend": 242,
        "mq_timedreceive": 243,
        "mq_notify": 244,
        "mq_getsetattr": 245,
        "keyctl": 250,
        "add_key": 248,
        "request_key": 249,
        "bpf": 321,
        "perf_event_open": 298,
        "userfaultfd": 323,
        "memfd_create": 319,
        "inotify_init": 253,
        "inotify_init1": 294,
        "inotify_add_watch": 254,
        "fanotify_init": 300,
        "fanotify_mark": 301,
        "open_by_handle_at": 304,
        "vmsplice": 278,
        "ptrace": 101,
        "pidfd_open": 434,
        "chmod": 90,
        "fchmod": 91,
        "fchmodat": 268,
        "fchmodat2": 452,
        "chown": 92,
        "fchown": 93,
        "lchown": 94,
        "fchownat": 260,
        "utime": 132,
        "utimes": 235,
        "utimensat": 280,
        "futimesat": 261,
        "setxattr": 188,
        "lsetxattr": 189,
        "fsetxattr": 190,
        "removexattr": 197,
        "lremovexattr": 198,
        "fremovexattr": 199,
        "fcntl": 72,
        "prlimit64": 302,
        "setpriority": 141,
        "sched_setaffinity": 203,
        "sched_setscheduler": 144,
        "sched_setparam": 142,
        "sched_setattr": 314,
        "ioprio_set": 251,
    },  # fmt: skip
    "aarch64": {
        "socket": 198,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "shmget": 194,
        "shmat": 196,
        "shmctl": 195,
        "shmdt": 197,
        "semget": 190,
        "semop": 193,
        "semctl": 191,
        "semtimedop": 192,
        "msgget": 186,
        "msgsnd": 189,
        "msgrcv": 188,
        "msgctl": 187,
        "mq_open": 180,
        "mq_unlink": 181,
        "mq_timedsend": 182,
        "mq_timedreceive": 183,
        "mq_notify": 184,
        "mq_getsetattr": 185,
        "keyctl": 219,
        "add_key": 217,
        "request_key": 218,
        "bpf": 280,
        "perf_event_open": 241,
        "userfaultfd": 282,
        "memfd_create": 279,
        "inotify_init1": 26,
        "inotify_add_watch": 27,
        "fanotify_init": 262,
        "fanotify_mark": 263,
        "open_by_handle_at": 265,
        "vmsplice": 75,
        "ptrace": 117,
        "pidfd_open": 434,
        "fchmod": 52,
        "fchmodat": 53,
        "fchmodat2": 452,
        "fchown": 55,
        "fchownat": 54,
        "utimensat": 88,
        "setxattr": 5,
        "lsetxattr": 6,
        "fsetxattr": 7,
        "removexattr": 14,
        "lremovexattr": 15,
        "fremovexattr": 16,
        "fcntl": 25,
        "prlimit64": 261,
        "setpriority": 140,
        "sched_setaffinity": 122,
        "sched_setscheduler": 119,
        "sched_setparam": 118,
        "sched_setattr": 274,
        "ioprio_set": 30,
    },  # fmt: skip
}
_SELF_ONLY = {  # call -> the argument that names the process (0: the caller itself)
    "prlimit64": 0,
    "sched_setaffinity": 0,
    "sched_setscheduler": 0,
    "sched_setparam": 0,
    "sched_setattr": 0,
}
_WHO_SELF = {"setpriority": 0, "ioprio_set": 1}  # call -> the `which` that means one process
_FCNTL_REFUSED = (1024, 1026, 1031)  # F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ
_ARGS = ("fcntl", *_SELF_ONLY, *_WHO_SELF)  # decided by their arguments, not refused outright
_MACHINE_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW, _RET_EPERM, _RET_KILL = 0x7FFF0000, 0x00050000 | 1, 0x80000000
_LD_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06


def _arg(index: int) -> tuple:
    """Load the low 32 bits of argument ``index`` (struct seccomp_data, little-endian)."""
    return (_LD_ABS, 0, 0, 16 + 8 * index)


def _argument_rule(name: str) -> list[tuple]:
    """What decides a call whose arguments matter; every path ends in a return."""
    allow, refuse = (_RET, 0, 0, _RET_ALLOW), (_RET, 0, 0, _RET_EPERM)
    if name == "fcntl":
        tests = [(_JEQ, len(_FCNTL_REFUSED) - i, 0, cmd) for i, cmd in enumerate(_FCNTL_REFUSED)]
        return [_arg(1), *tests, allow, refuse]
    if name in _SELF_ONLY:
        return [_arg(_SELF_ONLY[name]), (_JEQ, 0, 1, 0), allow, refuse]
    # (which, who): one process, and it is this one
    return [_arg(0), (_JEQ, 0, 3, _WHO_SELF[name]), _arg(1), (_JEQ, 0, 1, 0), allow, refuse]


def _filter(machine: str) -> list[tuple]:
    """Another architecture's calls are killed, the x32 ABI refused; each call above is
    refused, or decided by its arguments; everything else is allowed."""
    arch, calls = _MACHINE_ARCH[machine], _CALLS[machine]
    prog = [(_LD_ABS, 0, 0, 4), (_JEQ, 1, 0, arch), (_RET, 0, 0, _RET_KILL), (_LD_ABS, 0, 0, 0)]
    if arch == 0xC000003E:
        prog += [(_JGE, 0, 1, 0x40000000), (_RET, 0, 0, _RET_EPERM)]
    # after the refused numbers: each argument rule (the number again, then its body,
    # which always returns), then allow
    tail: list[tuple] = []
    for name in _ARGS:
        if name in calls:
            body = _argument_rule(name)
            tail += [(_LD_ABS, 0, 0, 0), (_JEQ, 0, len(body), calls[name])] + body
    tail.append((_RET, 0, 0, _RET_ALLOW))
    refused = [nr for name, nr in calls.items() if name not in _ARGS]
    for i, nr in enumerate(refused):  # a match jumps over the rest and the tail: refuse
        prog.append((_JEQ, len(refused) - i - 1 + len(tail), 0, nr))
    prog += tail + [(_RET, 0, 0, _RET_EPERM)]
    assert all(jt < 256 and jf < 256 for _, jt, jf, _ in prog), "a jump past BPF's reach"
    return prog


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def seccomp_available() -> bool:
    return os.uname().machine in _CALLS


def seccomp() -> None:
    """The filter above, for this process and every thread it starts."""
    prog = _filter(os.uname().machine)
    filters = (_SockFilter * len(prog))(*[_SockFilter(*f) for f in prog])
    fprog = _SockFprog(len(prog), filters)
    no_new_privileges()
    _check(
        _libc().prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp"
    )


class _KnownPackages(importlib.abc.MetaPathFinder):
    """Imports numpy, jax and the rest from where the judge found them, so that no
    folder of installed packages needs to be listable (Landlock would show all of it)."""

    def __init__(self, pairs):
        self.paths = {name: path for name, path in pairs}

    def find_spec(self, fullname, path=None, target=None):
        where = self.paths.get(fullname)
        if where is None or path is not None:
            return None
        if os.path.isdir(where):
            init = os.path.join(where, "__init__.py")
            if os.path.exists(init):
                return importlib.util.spec_from_file_location(
                    fullname, init, submodule_search_locations=[where]
                )
            spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [where]
            return spec
        return importlib.util.spec_from_file_location(fullname, where)


def apply(cfg: dict) -> list[str]:
    """Everything the config asks for; returns what could not be done."""
    failed: list[str] = []

    def attempt(step, *args) -> bool:
        try:
            step(*args)
        except OSError as exc:
            failed.append(str(exc))
            return False
        return True

    if cfg.get("drop_caps"):
        attempt(drop_capabilities)
    if cfg.get("landlock"):
        if attempt(landlock, cfg["landlock"]["abi"], cfg["landlock"]["rules"]):
            drop = {os.path.realpath(p) for p in cfg.get("drop_path", ())}
            sys.path[:] = [p for p in sys.path if os.path.realpath(p) not in drop]
            sys.meta_path.append(_KnownPackages(cfg.get("imports", ())))
    elif cfg.get("drop_caps"):
        attempt(no_new_privileges)
    if cfg.get("seccomp"):
        attempt(seccomp)
    return failed


# ---------------------------------------------------------------- no processes

# Work done in another process of the worker is work nobody measures: a forked child's
# sync counter is its own copy, a program it runs is not the learner's traced one, and
# a subprocess is not jax at all.  So once the learner's file is about to run, the
# worker makes no process: clone without CLONE_THREAD (fork, vfork, posix_spawn,
# subprocess, multiprocessing: glibc makes all of them with clone), fork and vfork fail
# with EPERM.  clone3 passes its flags in memory a seccomp filter cannot read, so it
# answers ENOSYS, and glibc falls back to clone for threads (jax's own, the learner's).
_CLONE_THREAD = 0x00010000
_PROCESS_CALLS = {  # clone, fork, vfork, clone3, seccomp
    0xC000003E: {"clone": 56, "fork": 57, "vfork": 58, "clone3": 435, "seccomp": 317},
    0xC00000B7: {"clone": 220, "clone3": 435, "seccomp": 277},
}
_RET_ENOSYS = 0x00050000 | 38
_JSET = 0x45
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1
# the Python doors to a new process, refused with words before the kernel is asked
PROCESS_EVENTS = (
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "os.exec",
    "subprocess.Popen",
    "pty.spawn",
)
REFUSED = (
    "the judge does not let your code start a process ({what}): work done in "
    "another process cannot be measured, and it is not what the lesson asks for. "
    "Threads are allowed; better, do the work on the device with jax.numpy and jax.lax"
)


class ProcessRefused(PermissionError):
    """A learner's attempt to start a process, refused (a PermissionError, as the
    kernel's own refusal would be, with words)."""


def _process_filter(arch: int) -> list[tuple]:
    calls = _PROCESS_CALLS[arch]
    prog = [(_LD_ABS, 0, 0, 4), (_JEQ, 1, 0, arch), (_RET, 0, 0, _RET_KILL), (_LD_ABS, 0, 0, 0)]
    if arch == 0xC000003E:
        prog += [(_JGE, 0, 1, 0x40000000), (_RET, 0, 0, _RET_EPERM)]
    prog += [(_JEQ, 0, 1, calls["clone3"]), (_RET, 0, 0, _RET_ENOSYS)]
    for name in ("fork", "vfork"):
        if name in calls:
            prog += [(_JEQ, 0, 1, calls[name]), (_RET, 0, 0, _RET_EPERM)]
    prog += [
        (_JEQ, 1, 0, calls["clone"]),
        (_RET, 0, 0, _RET_ALLOW),
        (_LD_ABS, 0, 0, 16),  # clone's flags (low 32 bits)
        (_JSET, 1, 0, _CLONE_THREAD),
        (_RET, 0, 0, _RET_EPERM),
        (_RET, 0, 0, _RET_ALLOW),
    ]
    return prog


def _refuse_in_python(event: str, args) -> None:
    if event in PROCESS_EVENTS:
        raise ProcessRefused(1, REFUSED.format(what=event))


def refuse_processes() -> None:
    """From now on no thread of this process may start a process (every thread at
    once: XLA's and the learner's threads already running get the filter too).  An
    audit hook refuses Python's own doors first, with a message that says why; the
    filter holds for every other route (ctypes, a library's fork)."""
    arch = _MACHINE_ARCH[os.uname().machine]
    prog = _process_filter(arch)
    filters = (_SockFilter * len(prog))(*[_SockFilter(*f) for f in prog])
    fprog = _SockFprog(len(prog), filters)
    no_new_privileges()
    libc = _libc()
    result = libc.syscall(
        _PROCESS_CALLS[arch]["seccomp"],
        ctypes.c_uint(_SECCOMP_SET_MODE_FILTER),
        ctypes.c_uint(_SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    if result > 0:
        raise OSError(0, f"no processes: thread {result} could not take the filter")
    _check(result, "no processes (seccomp)")
    sys.addaudithook(_refuse_in_python)
