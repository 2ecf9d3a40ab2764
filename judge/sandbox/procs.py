"""Process bookkeeping: spawning workers from one long-lived thread, reading /proc,
killing whole trees, reaping, and the escapee sweep.  No policy lives here.

Measured facts behind the choices (docs/security.md): SIGKILL, not SIGTERM (a learner's
handler can ignore the one, not the other); setsid and a double fork escape killpg, so
the judge is a child subreaper; children are reaped with wait4, which reports their
resource use.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import ctypes
import fcntl
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

from . import beneath

REAP_S = 5.0  # SIGKILL takes ~140 ms on a process holding 2 GiB
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_DUMPABLE = 4
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MAX_TREE = 4096  # a walk of a worker's tree stops here: a fork bomb ends it

lock = threading.Lock()  # spawning, the registry of live workers, the escapee sweep
live: set[int] = set()  # pids of workers (their outermost process) not yet closed
_helpers: set[int] = set()  # the judge's own short-lived children (probes, killers)
_prepared = False


def prepare_judge() -> None:
    """Once per judge process, before its first worker: orphans of a worker's tree
    (setsid + double fork) are re-parented to the judge, where close() and the watch
    find them; and the judge is not dumpable, so a process of its own uid can read
    neither its memory nor its environment, nor write to its descriptors through
    /proc/<pid>/fd."""
    global _prepared
    if _prepared or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    _prepared = True


# ---------------------------------------------------------------- reading /proc


def stat_fields(pid: int, tid: int | None = None) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (state is [0])."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rindex(b")") + 2 :].split()


def identity(pid: int) -> tuple[int, int, str] | None:
    """(ppid, start time in clock ticks, state), or None if it is gone."""
    fields = stat_fields(pid)
    if fields is None:
        return None
    return int(fields[1]), int(fields[19]), fields[0].decode()


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def descendants(pid: int, limit: int = MAX_TREE) -> list[int]:
    found: list[int]
    found, todo = [], [pid]
    while todo and len(found) < limit:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def uid_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def judge_children() -> list[int]:
    """The judge's direct children, from its own threads' lists (no /proc scan)."""
    return children(os.getpid())


def _kb_field(path: str, name: bytes) -> int | None:
    try:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(name):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


@dataclass
class Sample:
    """One look at a worker's processes."""

    pids: list[int] = field(default_factory=list)
    rss: int = 0  # bytes, summed (>= PSS)
    cpu_s: float = 0.0  # user + system of every process, reaped children included
    tasks: int = 0  # processes and threads
    threads: dict = field(default_factory=dict)  # (pid, tid) -> (cpu ns, run-queue wait ns)
    cpu_known: bool = True  # False: only threads were read
    cpus: dict = field(default_factory=dict)  # (pid, tid) -> the CPUs it may run on


def sample(root: int, threads: bool = False, tree: bool = True) -> Sample:
    """RSS and CPU of root's tree (of root alone without ``tree``: ~10x cheaper, no
    walk); with ``threads``, every thread's CPU and run-queue wait from schedstat (what
    the load-aware clock reads)."""
    s = Sample(pids=[root] + (descendants(root) if tree else []))
    for pid in s.pids:
        fields = stat_fields(pid)
        if fields is None:
            continue
        s.cpu_s += sum(int(x) for x in fields[11:15]) / _TICK
        s.tasks += int(fields[17])
        s.rss += int(fields[21]) * _PAGE
        if threads:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                        run, wait = f.read().split()[:2]
                    s.threads[(pid, tid)] = (int(run), int(wait))
                    s.cpus[(pid, tid)] = os.sched_getaffinity(int(tid))
                except (OSError, ValueError):
                    pass
    return s


def sample_main_thread(pid: int) -> Sample:
    """The process's main thread's schedstat: one read, what a request's start and end
    can afford (a tenth of a millisecond for four reads is a tenth of the cost of a
    call); the watch reads the rest."""
    s = Sample(pids=[pid], cpu_known=False)
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            run, wait = f.read().split()[:2]
        s.threads[(pid, str(pid))] = (int(run), int(wait))
    except (OSError, ValueError):
        pass
    return s


def pss_bytes(pids: list[int]) -> int:
    """Shared pages counted once across the tree; costs a page-table walk (~2 ms for
    jax).  A process whose smaps cannot be read counts with its RSS."""
    total = 0
    for p in pids:
        kb = _kb_field(f"/proc/{p}/smaps_rollup", b"Pss:")
        if kb is None:
            kb = _kb_field(f"/proc/{p}/status", b"VmRSS:") or 0
        total += kb
    return total << 10


# ---------------------------------------------------------------- spawning


class _Spawner:
    """Every worker is forked from this one long-lived thread.  PR_SET_PDEATHSIG (and
    bwrap's --die-with-parent) fire when the *thread* that forked the child exits, so a
    worker started from a short-lived thread (a pool's, a batch's) would die with it."""

    def __init__(self):
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self._thread_lock = threading.Lock()

    def run(self, fn):
        with self._thread_lock:  # is_alive() is False in a forked copy of the judge too
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, daemon=True, name="jj-worker-spawner"
                )
                self._thread.start()
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._jobs.put((fn, future))
        return future.result()

    def _loop(self) -> None:
        while True:
            fn, future = self._jobs.get()
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)


_spawner = _Spawner()


def spawn(argv: list[str], fds: tuple[int, ...], cwd: str, env: dict, **popen) -> subprocess.Popen:
    """Start a worker from the spawner thread; registered as live before any escapee
    sweep can see it."""

    def start():
        with lock:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=fds,
                cwd=cwd,
                env=env,
                start_new_session=True,
                **popen,
            )
            live.add(proc.pid)
        return proc

    return _spawner.run(start)


def run_helper(argv: list[str], timeout: float, **popen) -> subprocess.CompletedProcess:
    """A short-lived child of the judge (a probe): kept out of the escapee sweep."""
    with lock:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen
        )
        _helpers.add(proc.pid)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise
    finally:
        with lock:
            _helpers.discard(proc.pid)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


# ---------------------------------------------------------------- killing and reaping


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(pid: int) -> None:
    """The process group (a worker leads its own session), then every process of the
    tree: a member that left the group is still in the tree until it is orphaned."""
    tree = descendants(pid)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for p in [pid] + tree:
        kill(p)


def reap_quietly(pid: int) -> None:
    deadline = time.monotonic() + REAP_S
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
        except ChildProcessError:
            return
        time.sleep(0.005)


def escapees() -> list[tuple[int, str]]:
    """(pid, state) of the judge's children that are neither live workers nor the
    judge's helpers and not of the judge's session: orphans of some worker's tree (a
    worker leads its own session, and an escapee that called setsid leads another),
    never a child the judge's own code started some other way.  Caller holds ``lock``."""
    own_session, out = os.getsid(0), []
    for pid in judge_children():
        if pid in live or pid in _helpers:
            continue
        fields = stat_fields(pid)
        if fields is not None and int(fields[3]) != own_session:
            out.append((pid, fields[0].decode()))
    return out


_last_sweep = 0.0


def sweep_escapees(every_s: float = 0.0) -> None:
    """Kill and reap every orphan re-parented to the judge.  No worker has a right to
    leave its tree, so whichever worker it came from, it is killed.  Repeat: killing
    one re-parents its own children to the judge.  ``every_s``: skip the sweep if one
    ran that recently (the watches of many workers call this)."""
    global _last_sweep
    if every_s and time.monotonic() - _last_sweep < every_s:
        return
    with lock:
        _last_sweep = time.monotonic()
        for _ in range(50):
            found = escapees()
            if not found:
                return
            for pid, state in found:
                if state != "Z":
                    kill_tree(pid)
            for pid, _ in found:
                reap_quietly(pid)


# ---------------------------------------------------------------- scratch

_scratch_root: str | None = None
_root_lock: int | None = None  # held for the judge's life: its root is in use
_ROOT_PREFIX = "jax-judge-"
_LOCK_NAME = ".judge.lock"


def scratch_root() -> str:
    """This judge process's folder of scratch dirs (one per worker), removed at exit.
    Python never lives in it, so it can always be hidden from a sandboxed worker.  Mode
    0711: a worker of another uid may pass through to its own folder, never list it.
    The judge holds a lock on a file in it for as long as it lives: a judge killed
    outright leaves its folder behind, and the next judge, finding the lock free,
    removes it (pids would not do: judges may live in pid namespaces of their own)."""
    global _scratch_root, _root_lock
    with lock:
        if _scratch_root is None:
            _remove_stale_roots(tempfile.gettempdir())
            root = tempfile.mkdtemp(prefix=_ROOT_PREFIX)
            fd = os.open(
                os.path.join(root, _LOCK_NAME + ".new"),
                os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC,
                0o600,
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.rename(os.path.join(root, _LOCK_NAME + ".new"), os.path.join(root, _LOCK_NAME))
            os.chmod(root, 0o711)
            _scratch_root, _root_lock = root, fd
            atexit.register(rmtree, root)
    return _scratch_root


def _remove_stale_roots(tmp: str) -> None:
    """Scratch folders of this user's judges that are no longer running: their lock is
    free.  A folder without the lock file is left alone (not ours to judge)."""
    try:
        entries = [e for e in os.scandir(tmp) if e.name.startswith(_ROOT_PREFIX)]
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_symlink() or entry.stat(follow_symlinks=False).st_uid != os.geteuid():
                continue
            fd = os.open(
                os.path.join(entry.path, _LOCK_NAME), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW
            )
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its judge lives
        finally:
            os.close(fd)
        rmtree(entry.path)


def rmtree(path: str) -> None:
    """Remove a scratch dir even where the learner made parts of it unwritable, however
    deep it nested its folders, following no link and changing nothing outside it (not
    even its parent's mode): by descriptors, without recursion (beneath.remove_tree)."""
    beneath.remove_tree(path)
