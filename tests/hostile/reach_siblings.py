"""A forked worker reaching for its siblings in the same warm sandbox, and for the
sandbox's server: every route it knows, each one's outcome returned by name
("ALLOWED: ..." where it got through).  The judge hands it the victim's pid (as this
sandbox numbers it), its slot (HOME) and its submission's path."""

import ctypes
import os
import signal
import socket

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {  # the calls this file makes by number: x86_64, aarch64
    "x86_64": {"ptrace": 101, "mq_open": 240, "shmget": 29, "add_key": 248, "unshare": 272,
               "prlimit64": 302, "ioprio_set": 251, "memfd_create": 319,
               "inotify_init1": 294, "inotify_add_watch": 254, "fanotify_init": 300},
    "aarch64": {"ptrace": 117, "mq_open": 180, "shmget": 194, "add_key": 217, "unshare": 97,
                "prlimit64": 261, "ioprio_set": 30, "memfd_create": 279,
                "inotify_init1": 26, "inotify_add_watch": 27, "fanotify_init": 262},
}[os.uname().machine]  # fmt: skip


class _Rlimit(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]


def _prlimit(pid, resource, soft, hard):
    """Set another process's limit (RLIMIT_AS is 9): what its next allocations meet."""
    new = _Rlimit(soft, hard)
    return _sys(NR["prlimit64"], pid, resource, ctypes.byref(new), None)


def _lease_on_a_view_file():
    """A lease on a file every worker opens (owned by uid 0 outside, as the worker is):
    each open of it by another process would wait for this one to let go."""
    import json

    fd = os.open(json.__file__, os.O_RDONLY)
    try:
        import fcntl

        fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)  # F_SETLEASE
        fcntl.fcntl(fd, 1024, fcntl.F_UNLCK)
        return "leased"
    finally:
        os.close(fd)


def _watch(path):
    fd = _sys(NR["inotify_init1"], 0)
    try:
        return _sys(NR["inotify_add_watch"], fd, path.encode(), 0xFFF)
    finally:
        os.close(fd)
PIDFD_GETFD = 438  # the same number on both


def _try(fn):
    try:
        got = fn()
    except BaseException as exc:  # noqa: BLE001  (whatever stopped it is the answer)
        return f"denied: {type(exc).__name__}: {exc}"[:200]
    return f"ALLOWED: {got!r}"[:200]


def _sys(nr, *args):
    result = libc.syscall(nr, *args)
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return result


def _control_sockets():
    """Every socket among this process's descriptors: the server's control socket must
    not be one of them.  Each is asked to fork a worker, as the judge would."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        try:
            sock.send(b'{"op": "spawn"}')
            found.append(fd)
        except OSError:
            pass
        finally:
            sock.close()
    if found:
        return found
    raise LookupError("no socket among the descriptors")


def _fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    return pid


def solve(x, victim=0, victim_home="", victim_file=""):
    out = {}
    zygote = os.getppid()
    out["kill victim"] = _try(lambda: os.kill(victim, signal.SIGKILL))
    out["signal 0 to victim"] = _try(lambda: os.kill(victim, 0))
    out["kill server"] = _try(lambda: os.kill(zygote, signal.SIGKILL))
    out["kill every process"] = _try(lambda: os.kill(-1, signal.SIGKILL))
    out["pidfd signal victim"] = _try(
        lambda: signal.pidfd_send_signal(os.pidfd_open(victim), signal.SIGKILL)
    )
    out["pidfd of /proc dir"] = _try(
        lambda: signal.pidfd_send_signal(
            os.open(f"/proc/{victim}", os.O_RDONLY | os.O_DIRECTORY), signal.SIGKILL
        )
    )
    out["pidfd_getfd victim"] = _try(lambda: _sys(PIDFD_GETFD, os.pidfd_open(victim), 0, 0))
    out["ptrace attach victim"] = _try(lambda: _sys(NR["ptrace"], 16, victim, 0, 0))
    out["ptrace attach server"] = _try(lambda: _sys(NR["ptrace"], 16, zygote, 0, 0))
    for part in ("mem", "environ", "maps", "auxv", "stack"):
        out[f"read victim {part}"] = _try(lambda p=part: open(f"/proc/{victim}/{p}", "rb").read(64))
    out["read server environ"] = _try(lambda: open(f"/proc/{zygote}/environ", "rb").read(64))
    out["victim fds"] = _try(lambda: os.listdir(f"/proc/{victim}/fd"))
    out["server fds"] = _try(lambda: os.listdir(f"/proc/{zygote}/fd"))
    out["victim root"] = _try(lambda: os.listdir(f"/proc/{victim}/root/tmp"))
    out["victim cwd"] = _try(lambda: os.listdir(f"/proc/{victim}/cwd"))
    out["list victim home"] = _try(lambda: os.listdir(victim_home))
    out["read victim home file"] = _try(
        lambda: open(os.path.join(victim_home, "marker.txt")).read()
    )
    out["write victim home"] = _try(
        lambda: open(os.path.join(victim_home, "planted.txt"), "w").write("x")
    )
    out["read victim submission"] = _try(lambda: open(victim_file).read(64))
    out["list slots"] = _try(lambda: os.listdir(os.path.dirname(victim_home)))
    out["write /tmp"] = _try(lambda: open("/tmp/jj-planted", "w").write("x"))
    out["write /var/tmp"] = _try(lambda: open("/var/tmp/jj-planted", "w").write("x"))
    out["write /dev/shm"] = _try(lambda: open("/dev/shm/jj-planted", "w").write("x"))
    out["unix socket"] = _try(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
    out["posix message queue"] = _try(
        lambda: _sys(NR["mq_open"], b"jj-queue", os.O_CREAT | os.O_RDWR, 0o666, None)
    )
    out["system v shared memory"] = _try(lambda: _sys(NR["shmget"], 0x4A4A, 4096, 0o1666))
    out["user keyring"] = _try(lambda: _sys(NR["add_key"], b"user", b"jj", b"secret", 6, -4))
    out["new namespaces"] = _try(lambda: _sys(NR["unshare"], 0x10000000 | 0x20000))
    out["fork"] = _try(_fork)
    out["limit victim's memory"] = _try(lambda: _prlimit(victim, 9, 64 << 20, 64 << 20))
    out["limit server's memory"] = _try(lambda: _prlimit(zygote, 9, 400 << 20, 400 << 20))
    out["limit server's files"] = _try(lambda: _prlimit(zygote, 1, 0, 0))  # RLIMIT_FSIZE
    out["lower victim's priority"] = _try(lambda: os.setpriority(os.PRIO_PROCESS, victim, 19))
    out["lower every priority"] = _try(lambda: os.setpriority(os.PRIO_USER, 0, 19))
    out["pin victim to a cpu"] = _try(lambda: os.sched_setaffinity(victim, {0}))
    out["idle victim's scheduling"] = _try(
        lambda: os.sched_setscheduler(victim, os.SCHED_IDLE, os.sched_param(0))
    )
    out["idle victim's disk"] = _try(lambda: _sys(NR["ioprio_set"], 1, victim, 3 << 13))
    out["lease on a view file"] = _try(_lease_on_a_view_file)
    out["watch the slots"] = _try(lambda: _watch(os.path.dirname(victim_home)))
    out["watch victim's slot"] = _try(lambda: _watch(victim_home))
    out["memory in a memfd"] = _try(lambda: _sys(NR["memfd_create"], b"hoard", 0))
    out["pidfd of victim"] = _try(lambda: os.pidfd_open(victim))
    out["fanotify on the slots"] = _try(lambda: _sys(NR["fanotify_init"], 0x200 | 0x400, 0))
    out["server's control socket"] = _try(_control_sockets)
    with open(os.path.join(os.environ["HOME"], "attacker.txt"), "w") as f:
        f.write("mine")  # its own slot stays its own to write
    return out
