"""The judge's side of a worker: spawn it, limit it, talk to it, kill it.

The learner's code runs only in the worker (judge/worker/main.py).  This module never
imports jax: the judge forks a worker per submission, and a process that imported jax
should not fork.  Measured facts behind the choices here: ../shared/notes/sandbox.md.

One worker per submission.  The channel is two dedicated pipes, the worker's fd 1/2 are
drained by judge threads into capped buffers, and every wait is bounded: a request
returns a reply or raises WorkerFailure, and the worker is dead after any failure.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import ctypes
import json
import math
import os
import queue
import secrets
import select
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from .worker import wire

_WORKER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker")
_JUDGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Loads judge/worker as a package under a private name, so neither `judge` nor the
# folder holding it needs to be on the worker's sys.path.
_BOOTSTRAP = (
    "import importlib.util as u, sys\n"
    "d = sys.argv[1]\n"
    "s = u.spec_from_file_location('_jj_worker', d + '/__init__.py',"
    " submodule_search_locations=[d])\n"
    "m = sys.modules['_jj_worker'] = u.module_from_spec(s)\n"
    "s.loader.exec_module(m)\n"
    "import _jj_worker.main\n"
    "_jj_worker.main.boot(sys.argv[2])\n"
)

_POLL_S = 0.05          # how often waits look at the worker, and the memory watch period
_GRACE_S = 0.3          # after the worker died, how long a reply it wrote may still arrive
_REAP_S = 5.0           # SIGKILL takes ~140 ms on a process holding 2 GiB
_PR_SET_CHILD_SUBREAPER = 36
_LOST_EXIT = 71         # the worker's exit code when its channel broke under it
_EOF = object()


@dataclass
class Limits:
    call_timeout_s: float = 10.0
    run_timeout_s: float = 60.0
    memory_mb: int = 2048
    output_bytes: int = 64 * 1024
    file_size_bytes: int = 4 << 20
    start_timeout_s: float = 30.0   # spawn to ready (numpy and jax imported); no learner code yet


class WorkerFailure(Exception):
    """The worker did not answer: it timed out, ran out of memory, crashed, exited, or
    its channel was corrupted.  ``message`` is written for the learner; ``where`` is the
    op that was running ("start" means before any learner code ran: the judge's fault)."""

    KINDS = ("timeout", "memory", "crashed", "exited", "protocol")

    def __init__(self, kind: str, message: str, *, where: str | None = None,
                 detail: dict | None = None):
        if kind not in self.KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        super().__init__(message)
        self.kind, self.message, self.where, self.detail = kind, message, where, detail or {}


# ---------------------------------------------------------------- process bookkeeping

_lock = threading.Lock()        # spawning, the registry of live workers, the escapee sweep
_live: set[int] = set()         # pids of workers (their outermost process) not yet closed
_subreaper = False
_bwrap_checked: tuple[bool, str] | None = None
_bwrap_lock = threading.Lock()


def _become_subreaper() -> None:
    """Orphans of the worker tree (setsid + double fork) get re-parented to the judge,
    where close() can find and kill them."""
    global _subreaper
    if _subreaper or not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    _subreaper = True


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(ppid, start time in clock ticks, state) from /proc, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2:].split()
    return int(fields[1]), int(fields[19]), fields[0].decode()


def _children(pid: int) -> list[int]:
    out = []
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


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo and len(found) < 10_000:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


def _judge_children() -> list[tuple[int, int, str]]:
    me, out = os.getpid(), []
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[0] == me:
                out.append((int(name), st[1], st[2]))
    return out


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_tree(pid: int) -> None:
    for p in [pid] + _descendants(pid):
        _kill(p)


def _reap_quietly(pid: int) -> None:
    deadline = time.monotonic() + _REAP_S
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
        except ChildProcessError:
            return
        time.sleep(0.005)


def _sweep_escapees(since_tick: int) -> None:
    """Kill and reap the judge's children that are not live workers and started after
    the worker being closed: setsid + double-fork escapees re-parented to us.  Repeat,
    since killing one re-parents its own children to us.  Caller holds _lock."""
    for _ in range(50):
        found = [(pid, state) for pid, tick, state in _judge_children()
                 if pid not in _live and tick >= since_tick]
        if not found:
            return
        for pid, state in found:
            if state != "Z":
                _kill_tree(pid)
        for pid, _ in found:
            _reap_quietly(pid)


def _kb_field(path: str, field: bytes) -> int:
    try:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _rss_bytes(pids: list[int]) -> int:
    return sum(_kb_field(f"/proc/{p}/status", b"VmRSS:") for p in pids) << 10


def _pss_bytes(pids: list[int]) -> int:
    """Shared pages counted once across the tree; costs a page-table walk (~2 ms for jax)."""
    return sum(_kb_field(f"/proc/{p}/smaps_rollup", b"Pss:") for p in pids) << 10


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
                self._thread = threading.Thread(target=self._loop, daemon=True,
                                                name="jj-worker-spawner")
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


def _spawn(argv: list[str], fds: tuple[int, int], scratch: str, env: dict) -> subprocess.Popen:
    with _lock:  # registered before any escapee sweep can see it
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, pass_fds=fds, cwd=scratch, env=env,
                                start_new_session=True)
        _live.add(proc.pid)
    return proc


# ---------------------------------------------------------------- isolation

def _bwrap_base(hidden: list[str]) -> list[str]:
    args = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev",
            "--proc", "/proc"]
    for path in hidden:
        if os.path.isdir(path):
            args += ["--tmpfs", path]
        elif os.path.exists(path):
            args += ["--ro-bind", "/dev/null", path]
    return args + ["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"]


def _bwrap_usable() -> tuple[bool, str]:
    """Installed and working (user namespaces may be off): checked once per judge process."""
    global _bwrap_checked
    with _bwrap_lock:
        if _bwrap_checked is None:
            _bwrap_checked = _probe_bwrap()
    return _bwrap_checked


def _probe_bwrap() -> tuple[bool, str]:
    if shutil.which("bwrap") is None:
        return False, "bwrap is not installed"
    # `true`, not Python: this can sit before the first worker starts
    probe = [shutil.which("true")] if shutil.which("true") else [sys.executable, "-S", "-c", "pass"]
    with _lock:  # a child of the judge: keep the escapee sweep away from it
        try:
            res = subprocess.run(_bwrap_base([]) + ["--"] + probe, stdin=subprocess.DEVNULL,
                                 capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, str(exc)
    return res.returncode == 0, res.stderr.decode(errors="replace").strip()[:500]


def check_isolation_soon() -> None:
    """Probe bubblewrap in a thread now (it takes ~35 ms: a network namespace), so the
    answer is there when the first worker starts."""
    threading.Thread(target=_bwrap_usable, name="bwrap-probe", daemon=True).start()


def _resolve_isolation(requested: str) -> str:
    if requested == "process":
        return "process"
    ok, why = _bwrap_usable()
    if requested == "bubblewrap":
        if not ok:
            raise RuntimeError(f"bubblewrap isolation was requested but does not work: {why}")
        return "bubblewrap"
    if requested != "auto":
        raise ValueError(f"isolation must be auto, process or bubblewrap, not {requested!r}")
    return "bubblewrap" if ok else "process"


_scratch_root: str | None = None


def scratch_root() -> str:
    """This judge process's folder of scratch dirs (one per worker), removed at exit.
    Python never lives in it, so it can always be hidden from a sandboxed worker."""
    global _scratch_root
    with _lock:
        if _scratch_root is None:
            _scratch_root = tempfile.mkdtemp(prefix="jax-judge-")
            atexit.register(shutil.rmtree, _scratch_root, True)
    return _scratch_root


def _scrub_paths(hidden: list[str]) -> list[str]:
    """Folders to drop from the worker's sys.path: where the judge and the bank live,
    but never site-packages (an installed judge lives there beside numpy and jax; the
    deny list keeps `import judge` out instead)."""
    keep = {os.path.realpath(p) for p in site.getsitepackages() + [site.getusersitepackages()]}
    wanted = {_JUDGE_PARENT} | {os.path.dirname(p) for p in hidden}
    return sorted(p for p in wanted if os.path.realpath(p) not in keep)


def _hide_siblings(scratch: str) -> list[str]:
    """Empty tmpfs over the other workers' scratch dirs (other learners' files): always
    over this judge's scratch root, and over its parent (usually /tmp, where other
    judges keep theirs) unless Python itself lives there (a venv in /tmp)."""
    root = os.path.dirname(scratch)
    parent = os.path.dirname(root)
    needed = [os.path.realpath(p) for p in (sys.executable, sys.prefix, _WORKER_DIR, wire.__file__)]
    if any(p == parent or p.startswith(parent.rstrip("/") + "/") for p in needed):
        return ["--tmpfs", root]
    return ["--tmpfs", parent, "--tmpfs", root]


def _signal_words(sig: int) -> str:
    try:
        name = signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
    desc = signal.strsignal(sig) or ""
    return f"{name} ({desc[:1].lower() + desc[1:]})" if desc else name


def _seconds(x: float) -> str:
    return f"{x:g}"


# ---------------------------------------------------------------- the worker

class Worker:
    def __init__(self, limits: Limits, *, trusted: bool = False, hidden_paths=(),
                 isolation: str = "auto", devices: int | None = None):
        self.limits = limits
        self.devices = devices             # a task's `devices: N`, set before jax's first op
        self.ready_info: dict = {}         # what the worker said when it was ready
        self.trusted = trusted
        self.hidden_paths = [] if trusted else [os.path.abspath(p) for p in hidden_paths]
        self.isolation = _resolve_isolation(isolation)
        self.scratch: str | None = None    # the worker's cwd, HOME and TMPDIR; copy files here
        self.ready_s: float | None = None  # spawn to ready, measured by the judge
        self._proc: subprocess.Popen | None = None
        self._token = secrets.token_bytes(wire.TOKEN_LEN)
        self._seq = 0
        self._ready = False
        self._failure: WorkerFailure | None = None
        self._inbox: queue.Queue = queue.Queue()
        self._out = {"stdout": bytearray(), "stderr": bytearray()}
        self._truncated = False
        self._threads: list[threading.Thread] = []
        self._drains: list[threading.Thread] = []
        self._stop = threading.Event()
        self._kill_lock = threading.Lock()
        self._kill_reason: str | None = None
        self._status: tuple[int, object] | None = None  # (wait status, rusage) once reaped
        self._peak_pss = 0
        self._closed = False

    # -- lifecycle

    def start(self) -> None:
        """Spawn the worker and return at once; it imports numpy and jax meanwhile."""
        if self._proc is not None or self._closed:
            raise RuntimeError("a Worker starts once")
        _become_subreaper()
        self.scratch = tempfile.mkdtemp(prefix="worker-", dir=scratch_root())
        cmd_r, self._cmd_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        argv = self._argv(self._config(cmd_r, reply_w))
        try:
            self._proc = _spawner.run(lambda: _spawn(argv, (cmd_r, reply_w), self.scratch,
                                                     self._env()))
        except OSError as exc:
            self._failure = WorkerFailure("exited", f"the worker could not be started: {exc}",
                                          where="start")
            os.close(self._reply_r)
            os.close(self._cmd_w)
            raise self._failure from exc
        finally:
            os.close(cmd_r)
            os.close(reply_w)
        self._t0 = time.monotonic()
        self._run_deadline = self._t0 + self.limits.run_timeout_s
        self._start_tick = (_stat(self._proc.pid) or (0, 0, ""))[1]
        try:
            os.write(self._cmd_w, self._token)  # 16 bytes into an empty pipe: never blocks
        except OSError:
            pass  # it died already; the first request reports how
        os.set_blocking(self._cmd_w, False)
        self._spawn_thread(self._read_replies)
        self._drains = [self._spawn_thread(self._drain, "stdout", self._proc.stdout),
                        self._spawn_thread(self._drain, "stderr", self._proc.stderr)]
        self._spawn_thread(self._watch_memory)

    def begin_run(self) -> None:
        """Count the whole-run limit from now: for a worker started ahead of its one
        submission (a service's warm pool), the limit belongs to the grading, not to the
        worker's age."""
        self._run_deadline = time.monotonic() + self.limits.run_timeout_s

    def stop(self) -> None:
        """Kill the worker's tree now and return; close() reaps it.  Stopping several
        workers before closing them lets them die together."""
        if self._proc is not None and not self._closed:
            self._kill("closed")

    def close(self) -> None:
        """Kill the worker's whole tree and any escapee, reap, remove the scratch dir."""
        if self._closed:
            return
        self._closed = True
        if self._proc is not None:
            self._kill("closed")
            self._reap(_REAP_S)
            self._stop.set()
            with _lock:
                _live.discard(self._proc.pid)
                _sweep_escapees(self._start_tick)
            os.close(self._cmd_w)
            for t in self._threads:
                t.join(timeout=2.0)
        if self.scratch:
            _rmtree(self.scratch)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def pid(self) -> int | None:
        """The worker's outermost process (bwrap's, under bubblewrap)."""
        return self._proc.pid if self._proc is not None else None

    def __enter__(self) -> "Worker":
        if self._proc is None:
            self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def output(self) -> dict:
        """The learner's own prints so far (complete once close() has returned)."""
        return {"stdout": bytes(self._out["stdout"]).decode("utf-8", "replace"),
                "stderr": bytes(self._out["stderr"]).decode("utf-8", "replace"),
                "truncated": self._truncated}

    # -- requests

    def request(self, header: dict, blobs=(), timeout: float | None = None
                ) -> tuple[dict, list[bytes]]:
        """Send one frame and wait for its reply; on any failure the worker is killed and
        WorkerFailure raised (again on every later request)."""
        if self._failure is not None:
            raise self._failure
        if self._proc is None or self._closed:
            raise RuntimeError("request on a worker that is not running")
        where = str(header.get("op", "request"))
        try:
            if not self._ready:
                self._await_ready()
            data = wire.pack(self._token, self._seq + 1, header, list(blobs))
            self._seq += 1
            deadline, on_timeout = self._deadline(where, timeout)
            self._send(data, deadline, on_timeout, where)
            reply = self._receive(deadline, on_timeout, where)
            self._raise_if_out_of_memory(reply[0], where)
            return reply
        except WorkerFailure as failure:
            self._failure = failure
            self._kill("failed")
            self._reap(_REAP_S)
            raise

    def _await_ready(self) -> None:
        limit = self.limits.start_timeout_s
        deadline = min(self._t0 + limit, self._run_deadline)
        header, _ = self._receive(deadline, lambda: WorkerFailure(
            "timeout", f"the worker did not start within {_seconds(limit)} s", where="start"),
            "start")
        if header.get("op") != "ready" or not header.get("ok"):
            err = header.get("error") or {}
            raise WorkerFailure("exited", "the worker could not start: "
                                f"{err.get('type', '?')}: {err.get('message', '')}",
                                where="start", detail=err)
        self.ready_s = time.monotonic() - self._t0
        self.ready_info = header
        self._ready = True

    def _deadline(self, where: str, timeout: float | None):
        limit = self.limits.call_timeout_s if timeout is None else timeout
        now = time.monotonic()
        if now + limit <= self._run_deadline:
            words = (f"importing your file took longer than the {_seconds(limit)} s limit"
                     if where == "load" else
                     f"your code ran longer than the {_seconds(limit)} s limit for one call")
            return now + limit, lambda: WorkerFailure("timeout", words, where=where,
                                                      detail={"limit_s": limit})
        run = self.limits.run_timeout_s
        return self._run_deadline, lambda: WorkerFailure(
            "timeout", f"your code ran longer than the {_seconds(run)} s limit for the whole run",
            where=where, detail={"limit_s": run})

    def _send(self, data: bytes, deadline: float, on_timeout, where: str) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._cmd_w, view):]
                continue
            except BlockingIOError:
                pass
            except OSError:  # EPIPE: it died; EBADF: close() from another thread
                self._reap(_REAP_S)
                raise self._death_failure(where) from None
            self._check(deadline, on_timeout, where)
            select.select([], [self._cmd_w], [], _POLL_S)

    def _receive(self, deadline: float, on_timeout, where: str) -> tuple[dict, list[bytes]]:
        while True:
            try:
                item = self._inbox.get(timeout=_POLL_S)
            except queue.Empty:
                item = None
            if isinstance(item, tuple):
                return item
            if isinstance(item, wire.WireError):
                raise WorkerFailure(
                    "protocol", "the judge could not read the worker's reply: corrupted channel "
                    "(did the code write to file descriptors it does not own?)",
                    where=where, detail={"error": str(item)})
            if item is _EOF:
                return self._after_eof(where)
            if self._poll_exit():
                return self._after_exit(where)
            self._check(deadline, on_timeout, where)

    def _after_eof(self, where: str):
        """The reply pipe closed: the worker died, or the code closed the channel."""
        self._reap(1.0)
        if self._status is None:
            raise WorkerFailure("protocol", "the channel to the judge was closed (did the code "
                                "close file descriptors it does not own?)", where=where)
        raise self._death_failure(where)

    def _after_exit(self, where: str):
        """The worker is gone but an escapee may hold the pipe: take a reply it wrote first."""
        try:
            item = self._inbox.get(timeout=_GRACE_S)
        except queue.Empty:
            item = None
        if isinstance(item, tuple):
            return item
        raise self._death_failure(where)

    def _check(self, deadline: float, on_timeout, where: str) -> None:
        if self._kill_reason == "memory":
            self._reap(_REAP_S)
            raise self._memory_failure(where)
        if time.monotonic() >= deadline:
            raise on_timeout()

    def _raise_if_out_of_memory(self, header: dict, where: str) -> None:
        err = header.get("error")
        if not header.get("ok") and isinstance(err, dict) and err.get("category") == "memory":
            raise WorkerFailure(
                "memory", f"your code ran out of memory (the limit is {self.limits.memory_mb} MB):"
                f" {err.get('message', '')}", where=where, detail=err)

    # -- deaths

    def _memory_failure(self, where: str) -> WorkerFailure:
        return WorkerFailure("memory", f"your code used more than the {self.limits.memory_mb} MB "
                             "memory limit", where=where, detail={"peak_mb": self._peak_pss >> 20})

    def _death_failure(self, where: str) -> WorkerFailure:
        """Map how the worker died (already reaped, or reaped now) to a failure."""
        if self._kill_reason == "memory":
            return self._memory_failure(where)
        if self._status is None:
            self._reap(_REAP_S)
        status, rusage = self._status if self._status else (0, None)
        sig, code = self._signal_and_code(status)
        detail = {"signal": sig, "exit_code": code}
        if rusage is not None and self.isolation == "process":  # else it is bwrap's own
            detail.update(cpu_s=round(rusage.ru_utime + rusage.ru_stime, 3),
                          max_rss_mb=rusage.ru_maxrss >> 10)
        if where == "start":  # no learner code has run: this is for the judge's log
            for t in self._drains:
                t.join(timeout=0.5)  # to get its last words
            detail["stderr"] = self.output()["stderr"][-2000:]
            how = f"signal {_signal_words(sig)}" if sig else f"exit code {code}"
            return WorkerFailure("exited", f"the worker failed to start ({how})", where=where,
                                 detail=detail)
        if code == _LOST_EXIT:
            kind, words = "protocol", ("your code broke the worker's channel to the judge (did "
                                       "it close or use file descriptors it does not own?)")
        elif sig == signal.SIGXCPU:
            kind, words = "timeout", (f"your code used more than the CPU time allowed for the "
                                      f"whole run ({_seconds(self.limits.run_timeout_s)} s of wall "
                                      "time on every core)")
        elif sig:
            kind, words = "crashed", f"your code crashed the process with {_signal_words(sig)}"
        else:
            kind, words = "exited", (f"your code ended the process with exit code {code} "
                                     f"(as os._exit({code}) does)")
        return WorkerFailure(kind, words, where=where, detail=detail)

    def _signal_and_code(self, status: int) -> tuple[int | None, int | None]:
        if os.WIFSIGNALED(status):
            return os.WTERMSIG(status), None
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        if self.isolation == "bubblewrap" and code is not None and code > 128:
            return code - 128, None  # bwrap reports its child's death by signal n as 128+n
        return None, code

    def _poll_exit(self) -> bool:
        if self._status is None:
            try:
                pid, status, rusage = os.wait4(self._proc.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status, rusage = self._proc.pid, 0, None
            if pid:
                self._status = (status, rusage)
                self._proc.returncode = -1  # reaped here; keeps Popen from waiting again
        return self._status is not None

    def _reap(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self._poll_exit() and time.monotonic() < deadline:
            time.sleep(0.005)

    def _kill(self, reason: str) -> None:
        with self._kill_lock:
            if self._kill_reason is None:
                self._kill_reason = reason
            if self._status is not None:
                return
            pid = self._proc.pid
            tree = _descendants(pid)
            try:
                os.killpg(pid, signal.SIGKILL)  # start_new_session: its group id is its pid
            except (ProcessLookupError, PermissionError):
                pass
            for p in [pid] + tree:
                _kill(p)

    # -- threads

    def _spawn_thread(self, target, *args) -> threading.Thread:
        t = threading.Thread(target=target, args=args, daemon=True,
                             name=f"jj-worker-{self._proc.pid}-{target.__name__}")
        t.start()
        self._threads.append(t)
        return t

    def _read_replies(self) -> None:
        """Parse frames as they come, in order: ready is seq 0, replies 1, 2, ..."""
        seq = 0
        try:
            while True:
                self._inbox.put(wire.read_frame(self._reply_r, self._token, seq))
                seq += 1
        except EOFError:
            self._inbox.put(_EOF)
        except wire.WireError as exc:
            self._inbox.put(exc)
        except Exception as exc:  # OSError or MemoryError on a huge forged length
            self._inbox.put(wire.WireError(f"{type(exc).__name__}: {exc}"))
        finally:
            os.close(self._reply_r)

    def _drain(self, name: str, stream) -> None:
        """Keep the first output_bytes, read and drop the rest: the worker never blocks."""
        buf, cap, fd = self._out[name], self.limits.output_bytes, stream.fileno()
        try:
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                room = cap - len(buf)
                if room > 0:
                    buf += chunk[:room]
                if len(chunk) > room:
                    self._truncated = True
        except OSError:
            pass
        finally:
            stream.close()

    def _watch_memory(self) -> None:
        """Second line behind RLIMIT_AS: PSS of the whole tree, killed over the limit.
        RSS >= PSS and is cheap to read, so smaps_rollup is read only near the limit."""
        limit = self.limits.memory_mb << 20
        while not self._stop.wait(_POLL_S) and self._status is None:
            pids = [self._proc.pid] + _descendants(self._proc.pid)
            if _rss_bytes(pids) <= limit:
                continue
            pss = _pss_bytes(pids)
            self._peak_pss = max(self._peak_pss, pss)
            if pss > limit:
                self._kill("memory")
                return

    # -- how it is started

    def _config(self, cmd_fd: int, reply_fd: int) -> dict:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        deny = [] if self.trusted else sorted({"judge", "reference"} | {
            os.path.basename(p.rstrip("/")) for p in self.hidden_paths})
        return {
            "cmd_fd": cmd_fd, "reply_fd": reply_fd,
            # jax needs ~550 MiB of address space on 2 cores, ~64 MiB more per core; below
            # that floor memory exhaustion shows up as crashes, so stay far above it.
            "as_bytes": (self.limits.memory_mb + 1024 + 64 * cores) << 20,
            "cpu_s": math.ceil(cores * self.limits.run_timeout_s),  # XLA threads all count
            "fsize": self.limits.file_size_bytes,
            "judge_pid": os.getpid() if self.isolation == "process" else None,
            "lost_exit": _LOST_EXIT,
            "deny": deny,
            "scrub_paths": _scrub_paths(self.hidden_paths),
            "devices": self.devices,
        }

    def _argv(self, cfg: dict) -> list[str]:
        # -s -P -B: no user site, no script dir on sys.path, no bytecode.  Not -I: its -E
        # would ignore PYTHONHASHSEED, and the environment is ours alone anyway.
        inner = [sys.executable, "-s", "-P", "-B", "-c", _BOOTSTRAP, _WORKER_DIR, json.dumps(cfg)]
        if self.isolation != "bubblewrap":
            return inner
        siblings = [] if self.trusted else _hide_siblings(self.scratch)
        return (_bwrap_base(self.hidden_paths) + siblings
                + ["--bind", self.scratch, self.scratch, "--chdir", self.scratch, "--"] + inner)

    def _env(self) -> dict:
        return {"PATH": os.environ.get("PATH", os.defpath), "HOME": self.scratch,
                "TMPDIR": self.scratch, "LANG": "C.UTF-8", "MALLOC_ARENA_MAX": "2",
                "JAX_PLATFORMS": "cpu", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
                # OpenBLAS starts a spinning thread per core on import: ~0.1 s of CPU
                # taken from the other worker's start, for arrays of a few dozen numbers
                "OPENBLAS_NUM_THREADS": "1"}


def _rmtree(path: str) -> None:
    """Remove the scratch dir even where the learner made parts of it unwritable."""
    def fix(func, p, _exc):
        try:
            os.chmod(os.path.dirname(p), stat.S_IRWXU)
            os.chmod(p, stat.S_IRWXU)
            func(p)
        except OSError:
            pass
    shutil.rmtree(path, onerror=fix)
